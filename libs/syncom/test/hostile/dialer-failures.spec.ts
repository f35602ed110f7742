import { internals } from '../../src/testing/internals';
import type { MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';

/**
 * The dialer swallows no failure (LIFE-19, GUAR-9): a changes page whose
 * log append fails is reported on the sync 'error' event (IO_ERROR, with the
 * url), not only left for the link to offer again, and it lands when it does.
 */

const URL = 'memory://h';

describe('a changes page the dialer cannot take', () => {
  it('GUAR-9, LIFE-19: a page whose log append fails is reported (IO_ERROR with url) and lands when it comes again', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    (internals(d).backend as MemoryBackend).failAt(1, { code: 'ENOSPC', ops: ['write'] });
    const x = await h.s.insert({ first: true });
    await until(() => errors.length > 0, [d, h.s]);
    expect(errors.map((e) => [e.code, e.url])).toEqual([['IO_ERROR', URL]]);
    const y = await h.s.insert({ second: true });
    await until(async () => (await d.has(x)) && (await d.has(y)), [d, h.s]);
    await closeAll(d, h.s);
  });
});
