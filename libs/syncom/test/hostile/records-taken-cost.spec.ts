import { closeAll, dialer, hub, Net } from '../sync/helpers';
import { wrapUnit } from '../sync/scenario-helpers';

/**
 * A host may take fewer ids of a records call than it was asked (its own
 * pageSize or pageBytes is smaller) and says how many in `taken`; the dialer
 * asks the rest again. A host that took one id of each call had the dialer
 * ask a whole page (500 ids) again for every id: a run over n records it
 * lacked sent about 500 n ids for n answers of a few bytes each.
 */

const URL = 'memory://h';
const RECORDS = 600;
const PAGE = 500;

describe('hostile host: records answers that take one id each', () => {
  it('RECON: a run asks each id about twice, not a page per id taken (175,250 ids asked for 600 records before)', async () => {
    const h = await hub();
    const asked: string[] = [];
    let calls = 0;
    let hostile = false;
    const unit = wrapUnit(h.unit, async (method, args, _context, next) => {
      // The host keeps nothing pushed, so its reconcile answers name every record of the dialer's as one it lacks.
      if (method === 'push') return { applied: (args as { ops: unknown[] }).ops.length, skipped: 0, duplicates: 0, gaps: 0, vector: {} };
      if (method !== 'records' || !hostile) return next();
      calls++;
      asked.push(...(args as { ids: string[] }).ids);
      return { entries: [], taken: 1 };
    });
    const net = new Net();
    net.units.set(URL, unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, pageSize: PAGE } });
    const ids: string[] = [];
    for (let i = 0; i < RECORDS; i++) ids.push(await d.insert({ i }));
    const booted = new Promise<void>((resolve) => { const off = d.sync.on('bootstrap', () => { off(); resolve(); }); });
    await d.sync.addNode({ url: URL, token: 't' });
    await booted;
    hostile = true;
    await d.sync.forceSync();
    // One call per id the host took, as before: every id was asked.
    expect(calls).toBe(RECORDS);
    expect(new Set(asked)).toEqual(new Set(ids));
    // The first call asks a page; each later one at most twice what the host took before it.
    expect(asked.length).toBeLessThanOrEqual(PAGE + 2 * RECORDS);
    await closeAll(d, h.s);
  });
});
