import type { SyncomError } from '../../src';
import type { MemoryBackend } from '../../src/backend';
import { dialer, type hub, Net, seeded } from '../sync/helpers';
import { wrapUnit } from '../sync/scenario-helpers';

export const CLAIMS_URL = 'memory://h';

/**
 * A dialer (on a seeded memory backend, anti-entropy off) whose link reaches
 * `h`'s unit through a host that adds `claim(method, dialer id)`'s keys to
 * the vector of each answer it returns something for (a hostile host naming
 * streams of this node). Not registered yet: the test adds the node.
 */
export async function dialerOfClaims(h: Awaited<ReturnType<typeof hub>>, claim: (method: string, self: string) => Record<string, number> | undefined) {
  let self = '';
  const unit = wrapUnit(h.unit, async (method, _args, _context, next) => {
    const ans = (await next()) as Record<string, unknown>;
    const extra = claim(method, self);
    return extra ? { ...ans, vector: { ...(ans.vector as object), ...extra } } : ans;
  });
  const net = new Net();
  net.units.set(CLAIMS_URL, unit);
  const backend: MemoryBackend = await seeded();
  const d = await dialer(net, { backend, sync: { connect: net.connect, antiEntropyInterval: 0 } });
  self = d.id;
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  return { d, net, backend, errors };
}
