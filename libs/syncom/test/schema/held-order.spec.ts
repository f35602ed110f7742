import { internals } from '../../src/testing/internals';
import type { Op, Storage } from '../../src';
import { FLAG_HELD } from '../../src/op';
import { node, ship } from '../storage/helpers';
import { craft, reopen } from '../sync/scenario-helpers';
import { buildNoteClass } from './fixtures';

const v1 = { version: 1, types: { Note: buildNoteClass() } };
const v2 = { version: 2, types: { Note: buildNoteClass() } };

const heldFlags = (s: Storage) => internals(s).log.read(0).map((e) => [e.op.seq, e.flags & FLAG_HELD ? 'held' : '']);

/**
 * An origin that wrote at v2 and went back to v1 (a rolled-back deploy): its
 * stream carries a v2 inc, then a v1 inc of the same counter.
 */
async function rolledBack(): Promise<{ origin: Storage; ops: Op[] }> {
  const { s: origin } = await node(1_000_000);
  const ops = [
    craft(origin, { type: 'write', id: 'r', data: { $type: 'Note', title: 't', tags: [] }, v: 1 }, '*', 1),
    craft(origin, { type: 'inc', id: 'r', key: 'views', value: 1, v: 2 }, '*', 2),
    craft(origin, { type: 'inc', id: 'r', key: 'views', value: 1, v: 1 }, '*', 3),
  ];
  return { origin, ops };
}

describe('held ops keep their stream\'s order', () => {
  it('GUAR-26 GUAR-1 KIND-3: an op behind a held op of its stream waits with it, and the upgrade applies both: the counter reads as on a node that had the schema all along', async () => {
    const { origin, ops } = await rolledBack();
    const { s: current } = await node(1_000_000, { schema: v2 });
    const { s: older } = await node(1_000_000, { schema: v1 });
    await ship(origin, current, ops);
    await ship(origin, older, ops);
    expect(heldFlags(older)).toEqual([[1, ''], [2, 'held'], [3, 'held']]);
    expect(older.sync.schemaInfo()?.held.count).toBe(2);
    expect(await older.get('r')).toEqual({ $type: 'Note', title: 't', tags: [] });
    await older.close();
    const upgraded = await reopen(older, { schema: v2 });
    expect(upgraded.sync.schemaInfo()?.held).toEqual({ count: 0, lost: 0 });
    expect(await current.get('r')).toEqual({ $type: 'Note', title: 't', tags: [], views: 2 });
    expect(await upgraded.get('r')).toEqual(await current.get('r'));
    await Promise.all([origin, current, upgraded].map((s) => s.close()));
  });

  it('GUAR-26: a reopen still on the old schema keeps them both waiting (the op behind is not applied alone)', async () => {
    const { origin, ops } = await rolledBack();
    const { s: older } = await node(1_000_000, { schema: v1 });
    await ship(origin, older, ops);
    await older.close();
    const again = await reopen(older, { schema: v1 });
    expect(await again.get('r')).toEqual({ $type: 'Note', title: 't', tags: [] });
    expect(again.sync.schemaInfo()?.held.count).toBe(2);
    await Promise.all([origin, again].map((s) => s.close()));
  });

  it('GUAR-26: another stream is not held back, nor a purge of the held stream', async () => {
    const { origin, ops } = await rolledBack();
    // Stamped after the origin's write, which would otherwise reset the field over it.
    const { s: other } = await node(2_000_000);
    const { s: older } = await node(1_000_000, { schema: v1 });
    await ship(origin, older, ops);
    await ship(other, older, [craft(other, { type: 'inc', id: 'r', key: 'views', value: 5, v: 1 }, '*', 1)]);
    expect(await older.get('r')).toEqual({ $type: 'Note', title: 't', tags: [], views: 5 });
    await ship(origin, older, [craft(origin, { type: 'purge', id: 'r' }, '*', 4)]);
    expect(await older.has('r')).toBe(false);
    await Promise.all([origin, other, older].map((s) => s.close()));
  });
});
