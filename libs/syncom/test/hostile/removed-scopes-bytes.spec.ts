import type { OpenOptions } from '../../src';
import { hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

/**
 * A snapshot page and a records answer name the scope of each tombstone they
 * carry (`removedScopes`, src/sync/protocol/PROTOCOL.md). A scope name may be
 * 128 characters beside a tombstone of about 100 bytes: counted outside the
 * page's bytes, a page of tombstones was more than twice the pageBytes its
 * host promised (and past a dialer's frame bound sized from it).
 */

const LONG = 'S'.repeat(128);
const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
const scoped: Partial<OpenOptions> = { sync: { scope: typed } };
const PAGE_BYTES = 4096;

const bytesOf = (x: unknown) => Buffer.byteLength(JSON.stringify(x ?? {}));

describe('hostile: tombstones of a long scope name within pageBytes', () => {
  it('PROTO-7 HOST-6 SCOPE-20: a snapshot page of tombstones and its removedScopes hold together within pageBytes, and every tombstone is served once', async () => {
    const h = await hub({ pageBytes: PAGE_BYTES }, scoped);
    const gone: string[] = [];
    for (let i = 0; i < 200; i++) {
      const id = await h.s.insert({ $type: LONG, n: i });
      await h.s.delete(id);
      gone.push(id);
    }
    const peer = await node();
    const ctx = await greet(h.unit, peer, [LONG]);
    const seen: string[] = [];
    let args: Record<string, unknown> = { scopes: [LONG] };
    for (;;) {
      const page = (await h.unit.call('snapshot', args, ctx)) as { token: string; next: number | null; entries: { id: string }[]; removedScopes?: Record<string, string> };
      expect(page.removedScopes && Object.keys(page.removedScopes).sort()).toEqual(page.entries.map((e) => e.id).sort());
      expect(bytesOf(page.entries) + bytesOf(page.removedScopes)).toBeLessThanOrEqual(PAGE_BYTES + 32);
      seen.push(...page.entries.map((e) => e.id));
      if (page.next === null) break;
      args = { token: page.token, offset: page.next };
    }
    expect(seen.sort()).toEqual([...gone].sort());

    const ans = (await h.unit.call('records', { scope: LONG, ids: gone }, ctx)) as { entries: { id: string }[]; taken: number; removedScopes?: Record<string, string> };
    expect(ans.taken).toBeGreaterThan(1);
    expect(ans.taken).toBeLessThan(gone.length);
    expect(bytesOf(ans.entries) + bytesOf(ans.removedScopes)).toBeLessThanOrEqual(PAGE_BYTES + 32);
    await Promise.all([h.s.close(), peer.close()]);
  });
});
