import { packOps, type SyncomError } from '../../src';
import type { HostUnit, SubscribeOptions } from '../../src/link';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, node } from '../sync/helpers';
import { feedingUnit as feeding, turns } from './hostile-units';

/**
 * A page the dialer cannot apply (its beforeApply hook throws on it: PAGE_FAILED) reopens the
 * feed at once, and three in a row leave the peer STUCK. An empty page between two of them
 * started the count over: a host answering every subscription with an empty page, then a page
 * the hook refuses, had the dialer resubscribe at once, for ever, never STUCK, a PAGE_FAILED
 * reported each time (the loop the bootstrap and gap paces closed).
 */

const URL = 'memory://h';

/** Let what the last page started run out (the link's hops, the dialer's next subscribe). */
const quiet = () => turns(1000);

describe('hostile host: a failed page after an empty one, at every subscription', () => {
  it('PROTO-15 PROTO-16: the feed is asked again backed off, not at once and for ever (an empty page had started the failure count over)', async () => {
    const h = await hub();
    const w = await node();
    await w.insert({ a: 1 });
    const op = packOps([internals(w).log.read(0).at(-1)!.op]);
    let k = 0;
    const unit = feeding(h.unit, async (_n, o) => {
      await o.onData({ ops: [] }, `x.${++k}`);
      await o.onData({ ops: op }, `x.${++k}`);
    });
    const net = new Net();
    net.units.set(URL, unit as unknown as HostUnit);
    // The app's hook refuses what it cannot check: the host chooses to send just that.
    const d = await dialer(net, { hooks: { beforeApply: () => { throw new Error('refused by the app'); } }, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await quiet();
    // The first failure is mended at once (it may be passing); the next waits, as a gap's does.
    expect(unit.subscribes).toBeLessThanOrEqual(3);
    expect(errors.filter((e) => e.code === 'PAGE_FAILED').length).toBeLessThanOrEqual(3);
    await closeAll(d, h.s, w);
  });
});
