import { createMemoryLink, type SyncomError } from '../../src';
import type { HostUnit } from '../../src/link';
import { closeAll, hub, node } from '../sync/helpers';
import { bigStringifies } from './hostile-units';

/**
 * A hostile host's snapshot or reconciliation entry that brings nothing new
 * for a record the dialer holds costs the dialer what the entry holds, not
 * what the record holds. joinedUnchanged compared the joined entry with the
 * current one as JSON text, the whole record twice per entry: a page of 200
 * entries of ~100 bytes each naming a 1 MiB record made the dialer serialise
 * 400 MiB (a ratio of about 20,000 to the bytes the host sent).
 */

const URL = 'memory://h';
const BIG = 1 << 20;
const COPIES = 200;

/** A unit that drops pushes, and whose answers pass through `answer` (a copy of each). */
function rewrite(unit: HostUnit, answer: (m: string, args: Record<string, unknown>, ans: Record<string, unknown>) => unknown): HostUnit {
  return {
    access: unit.access,
    async call(m, args, ctx) {
      // The host keeps none of what the dialer pushes: its snapshot holds its own small state of the record.
      if (m === 'push') return {};
      const ans = await unit.call(m, args, ctx);
      return answer(m, (args ?? {}) as Record<string, unknown>, JSON.parse(JSON.stringify(ans ?? null)));
    },
    subscribe: (m, a, c, o) => unit.subscribe(m, a, c, o),
    stream: (id, c) => unit.stream(id, c),
    disconnect: (c) => unit.disconnect(c),
  };
}

describe('hostile host: entries that bring nothing for a large record', () => {
  it('BOOT-4 GUAR-3: a snapshot page naming one 1 MiB record 200 times (each entry ~100 bytes, nothing new) serialises the record a bounded number of times, not twice per entry', async () => {
    const h = await hub();
    // The host's state of the record is older than the dialer's: joined in, it changes nothing there.
    await h.s.set('big', { t: 1 });
    const evil = rewrite(h.unit, (m, _args, ans) => {
      if (m !== 'snapshot') return ans;
      const entries = ans.entries as { id: string }[];
      const one = entries.find((e) => e.id === 'big');
      return { ...ans, entries: Array.from({ length: COPIES }, () => one) };
    });
    const d = await node({ sync: { connect: () => createMemoryLink(evil), antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.set('big', { blob: 'x'.repeat(BIG) });
    const big = await bigStringifies(BIG, async () => {
      const booted = new Promise<void>((resolve) => { const off = d.sync.on('bootstrap', () => { off(); resolve(); }); });
      await d.sync.addNode({ url: URL, token: 't' });
      await booted;
    });
    expect(errors).toEqual([]);
    expect((await d.get('big'))?.blob).toHaveLength(BIG);
    // A push of the record and its file write are a few; 2 per copy (400) before the fix.
    expect(big).toBeLessThan(20);
    await closeAll(d, h.s);
  });
});
