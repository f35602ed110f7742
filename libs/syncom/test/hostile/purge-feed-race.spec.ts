import type { Storage } from '../../src';
import { internals } from '../../src/testing';
import { Feed } from '../../src/sync/host/feed';
import { SharedReads } from '../../src/sync/host/shared-pages';
import { PAGE_BYTES } from '../../src/sync/host/page-text';
import { SendWindow } from '../../src/sync/protocol/frames';
import { closeAll, node } from '../sync/helpers';

const SECRET = 'FEED-RACE-SECRET-5b2e';
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A changes feed cuts every frame of one log read from the read's ops,
 * packed and encoded once (page-text.ts, page-bytes.ts). A subscriber that
 * holds its acks keeps the feed waiting between frames; a purge scrubbed in
 * that wait must not reach it through the frames still to send.
 */
describe('hostile: a purge scrubbed while a feed has frames of one read still to send', () => {
  let stores: Storage[] = [];
  afterEach(async () => {
    await closeAll(...stores);
    stores = [];
  });

  it.each([['shared', true], ['own', false]])('OPS-11 GUAR-20: (%s read) a frame sent after the scrub carries no payload of the purged record', async (_name, share) => {
    const s = await node();
    stores = [s];
    await s.insert({ n: 0 });
    const x = await s.insert({ title: SECRET });
    for (let n = 1; n < 4; n++) await s.insert({ n });
    const pages: string[] = [];
    const acks: (() => void)[] = [];
    // One op a frame (pageBytes 1), one frame out at a time: the read of five ops is sent over five acks.
    const feed = new Feed({
      replica: s.replica, node: 'peer', scopes: ['*'], from: 0, pageSize: 50, pageBytes: 1,
      shared: share ? new SharedReads() : undefined, window: new SendWindow(1), now: 0, bootstrap: () => undefined,
      send: (page) => {
        // As the gateway sends a page (syncom-nest's page-message.ts): the bytes made in advance, where attached.
        const made = (page as { [PAGE_BYTES]?: () => Uint8Array[] })[PAGE_BYTES];
        pages.push(made ? Buffer.concat(made()).toString() : JSON.stringify(page));
        return new Promise<void>((resolve) => acks.push(resolve));
      },
    });
    while (pages.length < 1) await flush();
    expect(pages[0]).not.toContain(SECRET);
    await s.purge(x);
    await internals(s).committer.idle();
    while (pages.length < 6) {
      acks.splice(0).forEach((ack) => ack());
      await flush();
    }
    feed.close();
    expect(pages.filter((p) => p.includes(SECRET))).toEqual([]);
    // No hole: every op went, the scrubbed write among them (its header, which a peer takes as a no-op).
    const sent = pages.flatMap((p) => (JSON.parse(p) as { ops: unknown[][] }).ops);
    expect(sent.map((op) => op[1])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(sent.find((op) => op[4] === x)?.[9]).toBeNull();
  });
});
