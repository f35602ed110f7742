import { createMemoryLink, type SyncomError } from '../../src';
import type { HostUnit, SubscribeOptions } from '../../src/link';
import { closeAll, hub, node } from '../sync/helpers';
import { bigStringifies } from './hostile-units';

/**
 * A host's hello answer names its schema as { version, hash }. The answer's check read those two
 * and kept the object as it came: a host adding a megabyte under another key of it had the
 * dialer keep that megabyte in its registry record, serialise it and write it to the node's
 * registry file after every changes page (each of a few bytes), and every peer event carry it.
 */

const URL = 'memory://h';
const JUNK = 1 << 20;
const PAGES = 30;

describe('hostile host: a hello answer whose schema carries more than { version, hash }', () => {
  it('PROTO-4 REG-5: the dialer keeps { version, hash } only: no page of the feed makes it serialise the rest', async () => {
    const h = await hub();
    let feed: SubscribeOptions | undefined;
    let subscribed!: () => void;
    const opened = new Promise<void>((r) => (subscribed = r));
    const unit: HostUnit = {
      access: h.unit.access,
      async call(m, args, ctx) {
        const ans = await h.unit.call(m, args, ctx);
        if (m !== 'hello') return ans;
        return { ...(ans as object), schema: { version: 1, hash: 'h', junk: 'x'.repeat(JUNK) } };
      },
      subscribe: (_m, _a, _c, o) => { feed = o; subscribed(); return { unsubscribe() {} }; },
      stream: (id, c) => h.unit.stream(id, c),
      disconnect: (c) => h.unit.disconnect(c),
    };
    const d = await node({ sync: { connect: () => createMemoryLink(unit), antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await opened;
    // Empty pages, each with its event id: the dialer saves its cursor (its registry record) after each.
    const big = await bigStringifies(JUNK, async () => {
      for (let i = 1; i <= PAGES; i++) await feed!.onData({ ops: [] }, `x.${i}`);
    });
    expect(d.sync.peers()[0].cursor).toBe(`x.${PAGES}`);
    expect(big).toBe(0);
    expect(d.sync.listNodes()[0].remote.schema).toEqual({ version: 1, hash: 'h' });
    expect(errors).toEqual([]);
    await closeAll(d, h.s);
  });
});
