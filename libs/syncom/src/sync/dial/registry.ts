import { SyncomError } from '../../errors';
import { checkOptionShape, type OptionShape } from '../../open-options';
import type { Backend } from '../../backend/types';
import { platform } from '../../platform';
import type { SchemaInfo } from '../../schema';
import { isPlainObject, isVector } from '../../op/shape';
import type { Vector } from '../../op/types';
import { urlLabel } from '../../telemetry/url-label';

export const REMOTE_DIR = 'remote';

/** A registered node, as listNodes() shows it and its file under remote/ keeps it (REG-5). */
export interface NodeRecord {
  url: string;
  token?: string;
  scopes: string[];
  enabled: boolean;
  lastSync: number | null;
  /** The event id of the last changes page taken from this node. */
  cursor: string | null;
  /** This node's own ops the remote holds, per own stream key (LOG-17). */
  acked: Vector;
  remote: { id: string | null; epoch: string | null; schema: SchemaInfo | null };
}

/** Longest encoded url kept whole in a file name (file systems allow 255 bytes a name). */
const MAX_NAME = 200;

/**
 * The file of a node: its url percent-encoded (REG-6), encodeURIComponent
 * with two adjustments so any url works on any backend (REG-9): '.tmp-'
 * (reserved for atomic writes' temp files) is written '%2Etmp-', and an
 * encoding longer than 200 characters is cut and suffixed with '%~' and a
 * hash of the url. Neither can come out of encodeURIComponent itself, so
 * names stay one per url; the url is read from the file, never the name.
 */
export function nodeFile(url: string): string {
  let name = encodeURIComponent(url).replace(/\.tmp-/g, '%2Etmp-');
  if (name.length > MAX_NAME) name = `${name.slice(0, 120).replace(/%[0-9A-F]?$/, '')}%~${platform().sha256(url)}`;
  return `${REMOTE_DIR}/${name}.json`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A registry file's name (its node's url, encoded) wherever a text names it. */
const NODE_FILE_NAME = /[A-Za-z][A-Za-z0-9+.-]*%3A%2F%2F[^\s'"/]*/gi;

/**
 * `text` with each registry file's name in it as nodeFileLabel() gives it:
 * the name is its node's url, and a url's user info and query (a token) are
 * credentials, which no error or output of the store's may carry.
 */
export function withoutNodeNames(text: string): string {
  return text.replace(NODE_FILE_NAME, (name) => nodeFileLabel(name).slice(REMOTE_DIR.length + 1));
}

/**
 * A registry file as a message names it: its url as urlLabel gives it (the
 * file name is the url percent-encoded, credentials included, so the name
 * itself stays out of logs). `remote/<file of https://hub/syncom>`.
 */
export function nodeFileLabel(name: string): string {
  const encoded = name.replace(/\.json$/, '').replace(/%~[\s\S]*$/, '');
  let url: string;
  try {
    url = decodeURIComponent(encoded);
  } catch {
    return `${REMOTE_DIR}/<a file whose name is no encoded url>`;
  }
  return `${REMOTE_DIR}/<file of ${urlLabel(url)}>`;
}

/**
 * Throw unless `url` can name a registered node: a string of 1-1024
 * characters of well-formed text (its file is named by its percent-encoding,
 * REG-6, which a lone surrogate has none of). Every call taking a url checks
 * it: enableNode(42) and removeNode('\uD800') had thrown a bare TypeError or URIError.
 * @throws SyncomError INVALID_ARGUMENT, `call` heading the message.
 */
export function assertNodeUrl(url: unknown, call: string): asserts url is string {
  if (typeof url !== 'string' || url.length === 0 || url.length > 1024) throw new SyncomError('INVALID_ARGUMENT', `${call} needs a url of 1-1024 characters`);
  if (LONE_SURROGATE.test(url)) throw new SyncomError('INVALID_ARGUMENT', `${call} needs a url of well-formed text (it holds a lone UTF-16 surrogate)`);
}

const NODE_INPUT: OptionShape = { url: ['a url', () => true], token: ['a string', () => true], scopes: ['scope names', () => true] };

/**
 * addNode()'s record of what the app gave: as newNodeRecord, and a key it
 * does not know is refused: a misspelt `tokn` had registered the node
 * without its token, to be refused 401 at every hello.
 * @throws SyncomError INVALID_ARGUMENT.
 */
export function nodeToAdd(input: { url: unknown; token?: unknown; scopes?: unknown }): NodeRecord {
  const rec = newNodeRecord(input);
  checkOptionShape({ ...input }, NODE_INPUT, 'addNode()');
  return rec;
}

/**
 * Whether a re-added node's scopes grow: its cursor is then dropped, so the
 * next subscription bootstraps. A scoped feed's cursor moved past other
 * scopes' ops, and resumed with a scope added it served only what came
 * after, the records of that scope written before never
 * (test/sync/scopes-widen.spec.ts).
 */
export function scopesGrow(had: readonly string[], fresh: readonly string[]): boolean {
  return !had.includes('*') && fresh.some((s) => !had.includes(s));
}

/** A registered node's record with a re-added node's token and scopes, changed in place. */
export function updateNode(had: NodeRecord, fresh: NodeRecord): NodeRecord {
  had.scopes = fresh.scopes;
  if (fresh.token === undefined) delete had.token;
  else had.token = fresh.token;
  return had;
}

/** A fresh record for addNode() (or a registry file's, checked); scopes default to ['*'] (REG-1). */
export function newNodeRecord(input: { url: unknown; token?: unknown; scopes?: unknown }): NodeRecord {
  assertNodeUrl(input?.url, 'addNode()');
  if (input.token !== undefined && typeof input.token !== 'string') throw new SyncomError('INVALID_ARGUMENT', 'a node token is a string');
  const scopes = input.scopes ?? ['*'];
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string' && s.length > 0)) {
    throw new SyncomError('INVALID_ARGUMENT', 'scopes is a non-empty array of scope names');
  }
  const rec: NodeRecord = {
    url: input.url, scopes: [...new Set(scopes as string[])], enabled: true, lastSync: null, cursor: null, acked: {},
    remote: { id: null, epoch: null, schema: null },
  };
  if (input.token !== undefined) rec.token = input.token;
  return rec;
}

const stringOrNull = (x: unknown) => x === null || typeof x === 'string';

/**
 * Why a registry file's record is not one this node wrote, or undefined:
 * each field of its type (newNodeRecord checks url, token and scopes). Taken
 * as it came, `"remote": null` failed `syncom info` with a TypeError and
 * every reader of the record after it, and an `acked` count that is no
 * number read as acknowledged to retention.
 */
function recordFault(rec: Partial<Record<keyof NodeRecord, unknown>>): string | undefined {
  if (rec.enabled !== undefined && typeof rec.enabled !== 'boolean') return 'enabled is not true or false';
  if (rec.lastSync !== undefined && rec.lastSync !== null && typeof rec.lastSync !== 'number') return 'lastSync is not a number';
  if (rec.cursor !== undefined && !stringOrNull(rec.cursor)) return 'cursor is not a string';
  if (rec.acked !== undefined && !isVector(rec.acked)) return 'acked is not a map of counts';
  const r = rec.remote;
  if (r !== undefined && !(isPlainObject(r) && stringOrNull(r.id ?? null) && stringOrNull(r.epoch ?? null) && (r.schema === undefined || r.schema === null || isPlainObject(r.schema)))) {
    return 'remote is not { id, epoch, schema }';
  }
  return undefined;
}

/**
 * A registry file's text as the record it holds, as open() reads it (syncom verify too).
 * @throws Error (or SyncomError INVALID_ARGUMENT) saying why it is none.
 */
export function readNodeFile(text: string): NodeRecord {
  const rec = JSON.parse(text) as NodeRecord;
  if (typeof rec?.url !== 'string') throw new Error('no url');
  const fault = recordFault(rec);
  if (fault) throw new Error(fault);
  return knownFields(rec);
}

/**
 * A registry file's record (recordFault passed) as this node writes one: its
 * known fields only. Spread as it came, whatever else the file held (5 MB of
 * a field no version writes, a remote schema of any size) was kept, shown by
 * listNodes() and written again at every save of the node (after each
 * changes page).
 */
function knownFields(rec: NodeRecord): NodeRecord {
  const out = newNodeRecord(rec);
  if (rec.enabled !== undefined) out.enabled = rec.enabled;
  if (rec.lastSync !== undefined) out.lastSync = rec.lastSync;
  if (rec.cursor !== undefined) out.cursor = rec.cursor;
  out.acked = rec.acked ?? {};
  const r = rec.remote as Partial<NodeRecord['remote']> | undefined;
  const schema = r?.schema;
  if (r) out.remote = { id: r.id ?? null, epoch: r.epoch ?? null, schema: schema ? { version: schema.version, hash: schema.hash } : null };
  return out;
}

/** The registry: one file per node under <path>/remote/ (The registry). */
export class Registry {
  readonly nodes = new Map<string, NodeRecord>();
  /** Per url, the last save or removal of its file (chain). */
  private readonly writes = new Map<string, Promise<void>>();
  /** Set by close(): nothing is written from then on. */
  private closed = false;
  /**
   * Registry files that could not be read at load: a node of unknown scopes
   * and acks. Retention keeps every own op while one is left (see
   * SyncManager.pinned), as it would for a node that has none of them yet:
   * dropped silently, the node's own writes made offline aged out of the log
   * and never reached that host. A save of its url (addNode) or its removal
   * lets it go.
   */
  readonly unreadable = new Set<string>();

  constructor(private readonly backend: Backend, private readonly durable: boolean) {}

  /** Read every node file; an unreadable one is reported and skipped. */
  async load(onError: (e: SyncomError) => void): Promise<void> {
    await this.backend.mkdir(REMOTE_DIR);
    for (const name of await this.listed()) {
      if (!name.endsWith('.json')) continue;
      try {
        const rec = readNodeFile((await this.backend.read(`${REMOTE_DIR}/${name}`)) ?? '');
        this.nodes.set(rec.url, rec);
      } catch (e) {
        const file = `${REMOTE_DIR}/${name}`;
        this.unreadable.add(file);
        // The file and the cause as labels: both named the file, and its name holds its node's credentials.
        onError(new SyncomError('OP_UNREADABLE', `registry file ${nodeFileLabel(name)} cannot be read: its node is not dialed until addNode() registers it again, `
          + 'and until then every own op is kept for it', { file: nodeFileLabel(name), cause: new Error(withoutNodeNames(String((e as Error)?.message ?? e))) }));
      }
    }
  }

  /** The files of remote/; a failure to list them (a symbolic link there) is told without the names' credentials. */
  private async listed(): Promise<string[]> {
    try {
      return await this.backend.list(REMOTE_DIR);
    } catch (e) {
      if (!(e instanceof SyncomError)) throw e;
      throw new SyncomError(e.code, withoutNodeNames(e.message), { status: e.status, path: REMOTE_DIR });
    }
  }

  /**
   * Save a node's file; the saves and removals of one node are chained, in call order, never overlapping.
   * @throws SyncomError REGISTRY_UNSAVED (with url and cause) when the file cannot be written; CLOSED once close() was called.
   */
  save(rec: NodeRecord): Promise<void> {
    if (this.closed) return Promise.reject(registryClosed());
    // A record removeNode() let go of (or replaced) is not written back: its file would register it again at the next open.
    if (this.nodes.get(rec.url) !== rec) return Promise.resolve();
    const text = JSON.stringify(rec);
    // The save before this one reported its own failure to its caller; this one writes the newer state regardless.
    return this.chain(rec.url, () => this.backend.write(nodeFile(rec.url), text, { durable: this.durable }), (e) => unsaved(rec.url, e, 'not saved', 'kept in memory until the next save'));
  }

  /**
   * Let go of a node and remove its file, after the saves called before (a save called after finds no
   * record and writes nothing). Taken before those saves, a removal ran beside a save queued meanwhile,
   * which wrote the file back: the node gone in memory came back at the next open.
   * @throws SyncomError REGISTRY_UNSAVED when the file cannot be removed; CLOSED once close() was called.
   */
  remove(url: string): Promise<void> {
    if (this.closed) return Promise.reject(registryClosed());
    this.nodes.delete(url);
    // Durable as its saves are: a removal undone by a power cut dialed the node again, with its old cursor.
    return this.chain(url, () => this.backend.remove(nodeFile(url), { durable: this.durable }), (e) => {
      // Kept as an unreadable file is: removeNode() may be called again, and retention keeps every own op
      // meanwhile (the file registers the node again at the next open, with the cursor it holds).
      this.unreadable.add(nodeFile(url));
      return unsaved(url, e, 'not removed', 'the node is let go of in memory; its file is read again at the next open unless removeNode() is called again');
    });
  }

  /** Run `step` on `url`'s file once the steps before it settled; a settled last step leaves the map. */
  private chain(url: string, step: () => Promise<void>, failure: (e: unknown) => SyncomError): Promise<void> {
    const next = (this.writes.get(url) ?? Promise.resolve()).catch(() => undefined).then(step).then(() => {
      this.unreadable.delete(nodeFile(url));
    }, (e: unknown) => {
      throw failure(e);
    });
    this.writes.set(url, next);
    const settled = () => void (this.writes.get(url) === next && this.writes.delete(url));
    next.then(settled, settled);
    return next;
  }

  /**
   * Refuse every later save and removal (CLOSED), and wait for those under way: once the storage's close()
   * resolves nothing more is written. An addNode() or removeNode() that met close() while it hung up a
   * dialer had written the node's file after the lock was let go, undoing what the next open wrote.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  /** Wait for every save and removal under way. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes.values()]);
  }
}

function registryClosed(): SyncomError {
  return new SyncomError('CLOSED', 'the storage is closed; the node registry is not changed');
}

/**
 * REGISTRY_UNSAVED for a node file the backend refused to write or remove.
 * The OS's error names the file, whose name is the url percent-encoded,
 * credentials included, in its message, its `path` and its stack: the
 * cause kept is a copy holding the code and syscall, its message naming
 * the file by its url label (withoutNodeNames). An app that logs an error
 * with its cause (util.inspect, a Nest logger given the error) had written
 * a proxy's password and an api key.
 */
function unsaved(url: string, e: unknown, what: string, then: string): SyncomError {
  const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : undefined;
  const syscall = (e as { syscall?: unknown })?.syscall;
  const cause = new Error(withoutNodeNames(String((e as Error)?.message ?? e)));
  cause.stack = `${cause.name}: ${cause.message}`;
  Object.assign(cause, code !== undefined && { code }, typeof syscall === 'string' && { syscall });
  return new SyncomError('REGISTRY_UNSAVED', `registry of ${urlLabel(url)} ${what} (${code ?? 'the backend refused'}); ${then}`, { url, cause });
}
