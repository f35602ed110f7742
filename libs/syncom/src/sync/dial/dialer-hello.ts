import type { SyncLink } from '../../link/contract';
import { checkHelloAnswer, type HelloAnswer } from '../protocol/hello';
import type { SyncContext } from '../context';
import type { NodeRecord } from './registry';
import { CAPABILITIES } from '../protocol/versions';
import { SyncomError } from '../../errors';
import type { Vector } from '../../op/types';

const statusOf = (e: unknown) => (e as { status?: number })?.status;

/** What a dialer's hello came to: the host's answer, or the versions of a host that shares none with it. */
export type HelloOutcome = { ok: true; ans: HelloAnswer } | { ok: false; versions: number[] };

/**
 * The entries of `vector` for the streams of node `id` (its own, per scope and
 * joined from elsewhere). A hello carries only these: the host reads none of
 * the dialer's vector (it pushes nothing from it; the dialer is the one that
 * compares vectors), and a whole vector grows with every origin the dialer has
 * seen, some 60 bytes each, so a node that had seen a thousand origins no
 * longer fit an open hub's pre-authentication bytes (docs/replication.md).
 */
export function ownVector(vector: Vector, id: string): Vector {
  const out: Vector = {};
  for (const k in vector) {
    if (k === id || (k.startsWith(id) && (k[id.length] === '@' || k[id.length] === '<'))) out[k] = vector[k];
  }
  return out;
}

/**
 * Send hello (PROTO-4) with this node's wire versions and capabilities. A 426
 * from the host, or an answer on a version this node does not speak (an older
 * host answers none, which is 1), is no shared version (wire versions).
 */
export async function sendHello(m: SyncContext, link: SyncLink, rec: NodeRecord): Promise<HelloOutcome> {
  const log = m.replica;
  const hello = {
    node: log.id, vector: ownVector(log.vector, log.id), epoch: log.epoch, schema: m.helloSchema(), scopes: rec.scopes, token: rec.token,
    versions: [...m.wireVersions], caps: [...CAPABILITIES],
  };
  try {
    const ans = await m.telemetry.hello('dialer', rec.url, async () => checkHelloAnswer(await link.call('hello', hello)));
    return m.wireVersions.includes(ans.version) ? { ok: true, ans } : { ok: false, versions: [ans.version] };
  } catch (e) {
    if (statusOf(e) !== 426) throw e;
    return { ok: false, versions: ((e as { versions?: number[] }).versions ?? []).slice() };
  }
}

/**
 * The host answered with this node's own id: the url leads back to this node
 * (the same full peer list on every hub, or an alias such as localhost for
 * 127.0.0.1). The dialer must stop before it pushes, subscribes or
 * bootstraps, which would append a merge op per record to its own log.
 */
export function dialedSelf(m: SyncContext, ans: HelloAnswer, url: string): SyncomError | undefined {
  if (ans.node !== m.replica.id) return undefined;
  return new SyncomError('SELF_DIAL', `${url} is this node (its own id); not dialing it`, { url });
}
