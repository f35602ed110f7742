import type { SyncLink } from '../../link/contract';
import { checkHelloAnswer, type HelloAnswer } from '../protocol/hello';
import type { SyncContext } from '../context';
import type { NodeRecord } from './registry';
import { CAPABILITIES } from '../protocol/versions';
import { isSyncomError, SyncomError } from '../../errors';
import type { Vector } from '../../op/types';
import { allowedFor, keyOrigin, keyScope } from '../protocol/scopes';
import { isChallenge } from '../protocol/hello-proof';
import { urlLabel } from '../../telemetry/url-label';

const statusOf = (e: unknown) => (e as { status?: number })?.status;

/** What a dialer's hello came to: the host's answer, or the versions of a host that shares none with it. */
export type HelloOutcome = { ok: true; ans: HelloAnswer } | { ok: false; versions: number[] };

/**
 * The entries of `vector` for the streams of node `id` (its own, per scope and
 * joined from elsewhere) in `scopes` and the global scope. A hello carries
 * only these: the host reads none of the dialer's vector (it pushes nothing
 * from it; the dialer is the one that compares vectors), and a whole vector
 * grows with every origin the dialer has seen, some 48 bytes each, so a node
 * that had seen about 1,300 origins no longer fit an open hub's
 * pre-authentication bytes (docs/replication.md). A host dialed for some
 * scopes relays those alone: the names of the node's other scopes, and how
 * much it wrote in each, went to it with every hello.
 */
export function ownVector(vector: Vector, id: string, scopes: readonly string[] = ['*']): Vector {
  const out: Vector = {};
  const allowed = allowedFor(scopes);
  for (const k in vector) if (keyOrigin(k) === id && (allowed === 'all' || allowed.has(keyScope(k)))) out[k] = vector[k];
  return out;
}

/**
 * Send hello (PROTO-4) with this node's wire versions and capabilities. A 426
 * from the host, or an answer on a version this node does not speak (an older
 * host answers none, which is 1), is no shared version (wire versions). A
 * host that asks peers to prove their node id refuses the first hello 401
 * UNPROVEN with a challenge: it is signed with this node's key and the hello
 * sent once more with the signature (hello-proof.ts).
 */
export async function sendHello(m: SyncContext, link: SyncLink, rec: NodeRecord, base?: VectorBase): Promise<HelloOutcome> {
  const log = m.replica;
  const hello: Record<string, unknown> = {
    node: log.id, vector: ownVector(log.vector, log.id, rec.scopes), epoch: log.epoch, schema: m.helloSchema(), scopes: rec.scopes, token: rec.token,
    versions: [...m.wireVersions], caps: [...CAPABILITIES], ...(base && { vectorSince: base.mark }),
  };
  const greet = () => m.telemetry.hello('dialer', rec.url, async () => checkHelloAnswer(await link.call('hello', hello)));
  try {
    const ans = await greet().catch(async (e: unknown) => {
      const challenge = (e as { challenge?: unknown })?.challenge;
      if (!isSyncomError(e, 'UNPROVEN') || !isChallenge(challenge)) throw e;
      hello.proof = await log.proveHello(challenge);
      return greet();
    });
    return m.wireVersions.includes(ans.version) ? { ok: true, ans } : { ok: false, versions: [ans.version] };
  } catch (e) {
    if (statusOf(e) !== 426) throw e;
    return { ok: false, versions: ((e as { versions?: number[] }).versions ?? []).slice() };
  }
}

/** A host's vector as its last hello answer gave it, whole (for the hello's scopes), with that answer's mark. */
export interface VectorBase {
  mark: string;
  vector: Vector;
  /** The scopes of that hello, one string: a hello of other scopes asks for the whole vector. */
  scopes: string;
}

/** The base a hello of `scopes` may name: the kept one, when it was answered for the same scopes. */
export function baseFor(base: VectorBase | undefined, scopes: readonly string[]): VectorBase | undefined {
  return base?.scopes === scopes.join('\n') ? base : undefined;
}

/**
 * The host's whole vector from a hello answer, and what the next hello may
 * name: an answer against `base` (it echoes the mark sent) holds only the
 * entries changed since, laid over the base's; any other answer is whole.
 * An answer that says it is a delta against a mark this node did not send
 * cannot be made whole: it is taken as it is (what it lacks reads as not
 * held, so the dialer pushes more than needed, never less) and no base is
 * kept, so the next hello asks for the whole vector.
 */
export function wholeVector(ans: HelloAnswer, base: VectorBase | undefined, scopes: readonly string[]): { vector: Vector; base?: VectorBase } {
  const delta = ans.vectorSince !== undefined;
  if (delta && ans.vectorSince !== base?.mark) return { vector: { ...ans.vector } };
  // A new object either way: an in-process link may hand over the host's own.
  const vector = delta ? { ...base?.vector, ...ans.vector } : { ...ans.vector };
  return { vector, ...(ans.vectorMark !== undefined && { base: { mark: ans.vectorMark, vector, scopes: scopes.join('\n') } }) };
}

/**
 * The host answered with this node's own id: the url leads back to this node
 * (the same full peer list on every hub, or an alias such as localhost for
 * 127.0.0.1). The dialer must stop before it pushes, subscribes or
 * bootstraps, which would append a merge op per record to its own log.
 */
export function dialedSelf(m: SyncContext, ans: HelloAnswer, url: string): SyncomError | undefined {
  if (ans.node !== m.replica.id) return undefined;
  return new SyncomError('SELF_DIAL', `${urlLabel(url)} is this node (its own id); not dialing it`, { url });
}
