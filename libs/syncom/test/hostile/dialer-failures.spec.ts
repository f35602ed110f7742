import { internals } from '../../src/testing/internals';
import type { MemoryBackend } from '../../src/backend';
import { closeAll, hostAndDialer, until } from '../sync/helpers';

/**
 * The dialer swallows no failure (LIFE-19, GUAR-9): a changes page whose
 * log append fails is reported on the sync 'error' event (IO_ERROR, with the
 * url), not only left for the link to offer again, and it lands when it does.
 */

const URL = 'memory://h';

describe('a changes page the dialer cannot take', () => {
  it('GUAR-9, LIFE-19: a page whose log append fails is reported (IO_ERROR with url) and lands when it comes again', async () => {
    const { h, d, errors } = await hostAndDialer(URL);
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
