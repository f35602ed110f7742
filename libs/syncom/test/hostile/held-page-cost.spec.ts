import { createMemoryLink } from '../../src';
import { OpLog } from '../../src/log/op-log';
import { closeAll, hub, node } from '../sync/helpers';

/**
 * On a node whose schema holds ops of newer versions (`ahead: 'hold'`, the
 * default), a snapshot page finds what the log holds for a newer schema
 * (replication.md, Hold, on every path). It read the whole log for it at
 * every page: a host paging one record at a time cost the dialer its log's
 * length a page, whatever the page held. Counted here in log entries read.
 */
const LOG = 5_000;
const PAGES = 200;

describe('hostile host: small snapshot pages on a dialer with a long log and a schema that holds', () => {
  it('GUAR-26 GUAR-3: a bootstrap in pages of one record each reads the dialer\'s log of 5,000 entries a bounded number of times, not once a page', async () => {
    const h = await hub({ pageSize: 1 });
    for (let i = 0; i < PAGES; i++) await h.s.set(`h${i}`, { n: i });
    const d = await node({ schema: { version: 1, types: {} }, sync: { connect: () => createMemoryLink(h.unit), antiEntropyInterval: 0 } });
    await Promise.all(Array.from({ length: LOG }, (_, i) => d.set(`d${i}`, { n: i })));
    let read = 0;
    const real = OpLog.prototype.read;
    const spy = jest.spyOn(OpLog.prototype, 'read').mockImplementation(function (this: OpLog, ...a: Parameters<OpLog['read']>) {
      const out = real.apply(this, a);
      read += out.length;
      return out;
    });
    try {
      const booted = new Promise<void>((resolve) => { const off = d.sync.on('bootstrap', () => { off(); resolve(); }); });
      await d.sync.addNode({ url: 'memory://h', token: 't' });
      await booted;
    } finally {
      spy.mockRestore();
    }
    expect(await d.get(`h${PAGES - 1}`)).toEqual({ n: PAGES - 1 });
    // Before, each page read the log whole: 5,200 pages (the dialer pushed its own 5,000 records first), 26 million entries.
    expect(read).toBeLessThan(10 * LOG);
    await closeAll(d, h.s);
  });
});
