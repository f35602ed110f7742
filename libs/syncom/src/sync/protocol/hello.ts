import { isSyncomError, SyncomError } from '../../errors';
import { isOrigin } from '../../op/check';
import { isPrototypeOrigin } from '../../op/shape';
import type { Vector } from '../../op/types';
import type { SchemaInfo } from '../../schema';
import { isScopeName, MAX_SCOPE_NAME, MAX_SCOPE_NAMES } from './scopes';
import { everyItem, readCaps, readVersions } from './versions';

/** What a dialer sends in hello (PROTO-4, SCHEMA-1). */
export interface Hello {
  node: string;
  vector: Vector;
  epoch: string;
  schema: SchemaInfo | null;
  scopes: string[];
  token?: string;
  /** The wire versions the dialer speaks ([1] for an older build that sends none). */
  versions: number[];
  /** The dialer's capabilities ([] for an older build). */
  caps: string[];
  /** The `vectorMark` of this host's last answer the dialer kept: the host may answer only what changed since. */
  vectorSince?: string;
  /** The signature of the host's challenge by this node's key, when the host asked for one (hello-proof.ts). */
  proof?: string;
}

/** What the host answers. */
export interface HelloAnswer {
  node: string;
  vector: Vector;
  epoch: string;
  floor: number;
  schema: SchemaInfo | null;
  /** The version sync runs on (1 from an older host that names none). */
  version: number;
  /** The host's capabilities ([] from an older host): 'reconcile/1' enables reconciliation. */
  caps: string[];
  /** The largest reconcile message the host takes, in UTF-8 bytes (absent from an older host). */
  reconcileFrame?: number;
  /** The largest push the host takes, in UTF-8 bytes, when it says (bounded frames): the dialer's pages stay within it. */
  pushBytes?: number;
  /** The point of the host's history `vector` stands at, for the next hello's `vectorSince` (absent from an older host). */
  vectorMark?: string;
  /** Set (to the hello's `vectorSince`) when `vector` holds only the entries changed since that mark. */
  vectorSince?: string;
}

const isStr = (x: unknown, max = 1024): x is string => typeof x === 'string' && x.length > 0 && x.length <= max;
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Counts under keys of streams an op can run in: none of an origin named like an Object.prototype member (isPrototypeOrigin). */
function isVector(x: unknown): x is Vector {
  return isObj(x) && Object.entries(x).every(([k, v]) => k.length > 0 && !isPrototypeOrigin(k) && Number.isSafeInteger(v) && (v as number) >= 0);
}

function isSchema(x: unknown): x is SchemaInfo | null {
  return x === null || (isObj(x) && Number.isSafeInteger(x.version) && isStr(x.hash, 256));
}

/**
 * The most scopes a hello may name: every feed, snapshot and reconciliation
 * of the session checks each op or record it serves against them. Each is
 * a scope name (isScopeName: 1-128 characters, no '<' nor control characters), as changes and
 * snapshot args are held to.
 */
export const MAX_HELLO_SCOPES = MAX_SCOPE_NAMES;

const bad = (why: string) => new SyncomError('BAD_HELLO', `hello: ${why}`, { status: 400 });

/** The hellos checkHello made: a host handed one of them (a gateway checked it already) reads it once, not twice. */
const checkedHellos = new WeakSet<object>();

/**
 * A hello as checkHello made it, or `x` checked now: a transport that validated the envelope
 * with checkHello hands the unit that very object, and the hello is read once.
 *
 * @throws SyncomError BAD_HELLO as checkHello.
 */
export function checkedHello(x: unknown): Hello {
  return typeof x === 'object' && x !== null && checkedHellos.has(x) ? (x as Hello) : checkHello(x);
}

/** Check a hello or its answer from the far side; never throws anything but a 400 SyncomError BAD_HELLO. */
export function checkHello(x: unknown): Hello {
  try {
    return readHello(x);
  } catch (e) {
    // A value whose reading throws (a getter, a proxy: never JSON, but a caller in-process can pass one).
    throw isSyncomError(e) ? e : bad('unreadable');
  }
}

function readHello(x: unknown): Hello {
  if (!isObj(x)) throw bad('not an object');
  if (!isStr(x.node, 128)) throw bad('node is no id');
  if (!isVector(x.vector)) throw bad('vector is no version vector');
  if (!isStr(x.epoch, 64)) throw bad('epoch is missing');
  const schema = x.schema ?? null;
  if (!isSchema(schema)) throw bad('schema is neither null nor { version, hash }');
  const scopes = x.scopes ?? ['*'];
  if (Array.isArray(scopes) && scopes.length > MAX_HELLO_SCOPES) throw bad(`over ${MAX_HELLO_SCOPES} scopes`);
  if (!Array.isArray(scopes) || scopes.length === 0 || !everyItem(scopes, isScopeName)) throw bad(`scopes is no list of names (1-${MAX_SCOPE_NAME} characters, no '<' nor control characters)`);
  if (x.token !== undefined && x.token !== null && typeof x.token !== 'string') throw bad('token is not a string');
  const versions = readVersions(x.versions);
  if (!versions) throw bad('versions is no list of positive integers');
  const caps = readCaps(x.caps);
  if (!caps) throw bad('caps is no list of names');
  // Rebuilt from the two fields read: anything else the far side put in it was kept (in a dialer's registry record, saved after every page).
  const info = schema === null ? null : { version: schema.version, hash: schema.hash };
  const hello: Hello = { node: x.node, vector: x.vector, epoch: x.epoch, schema: info, scopes: scopes as string[], versions, caps };
  if (typeof x.token === 'string') hello.token = x.token;
  if (x.vectorSince !== undefined && x.vectorSince !== null) {
    if (!isStr(x.vectorSince, 128)) throw bad('vectorSince is no mark');
    hello.vectorSince = x.vectorSince;
  }
  if (x.proof !== undefined && x.proof !== null) {
    if (!isStr(x.proof, 128)) throw bad('proof is no signature');
    hello.proof = x.proof;
  }
  checkedHellos.add(hello);
  return hello;
}

/**
 * Check the host's answer to hello. Its `node` is held to an origin's shape
 * (isOrigin: no '@' nor '<'): the dialer signs the merges and advances of a
 * bootstrap from that host with it as their `from`, and an id that is no
 * origin made them malformed at every honest peer, refused there in silence
 * (test/hostile/host-node-id-shape.spec.ts).
 */
export function checkHelloAnswer(x: unknown): HelloAnswer {
  let copy: Record<string, unknown> = {};
  try { copy = { ...(isObj(x) ? x : {}) }; } catch { throw bad('unreadable'); }
  const h = checkHello({ ...copy, scopes: ['*'], versions: undefined });
  if (!isOrigin(h.node)) throw bad("node is no node id (1-128 characters, no '@' nor '<')");
  const { floor, version, reconcileFrame, pushBytes, vectorMark } = copy as { floor?: unknown; version?: unknown; reconcileFrame?: unknown; pushBytes?: unknown; vectorMark?: unknown };
  const ans: HelloAnswer = {
    node: h.node, vector: h.vector, epoch: h.epoch, schema: h.schema, floor: Number.isSafeInteger(floor) ? (floor as number) : 0,
    version: Number.isSafeInteger(version) ? (version as number) : 1, caps: h.caps,
  };
  if (Number.isSafeInteger(reconcileFrame) && (reconcileFrame as number) > 0) ans.reconcileFrame = reconcileFrame as number;
  if (Number.isSafeInteger(pushBytes) && (pushBytes as number) > 0) ans.pushBytes = pushBytes as number;
  if (isStr(vectorMark, 128)) ans.vectorMark = vectorMark;
  if (h.vectorSince !== undefined) ans.vectorSince = h.vectorSince;
  return ans;
}
