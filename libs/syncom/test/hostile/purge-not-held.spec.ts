import 'reflect-metadata';
import type { Storage } from '../../src';
import { FLAG_HELD } from '../../src/op';
import { internals } from '../../src/testing/internals';
import { buildNoteClass } from '../schema/fixtures';
import { closeAll, hostAndDialer, until } from '../sync/helpers';

const URL = 'memory://h';
const v1 = { version: 1, ahead: 'hold' as const, types: { Note: buildNoteClass() } };
const v2 = { version: 2, types: { Note: buildNoteClass() } };

/** Every log entry of an id in a storage, with its payload as logged. */
const entriesOf = (s: Storage, id: string) => internals(s).log.read(internals(s).log.floor).filter((e) => e.op.id === id);

/** What a purge must leave on the v1 node, whichever path brought it: nothing readable, nothing held, no payload logged. */
async function erased(d: Storage, id: string) {
  await internals(d).committer.idle();
  expect(await d.has(id)).toBe(false);
  expect(entriesOf(d, id).filter((e) => e.flags & FLAG_HELD)).toEqual([]);
  expect(JSON.stringify(entriesOf(d, id).map((e) => e.op))).not.toContain('secret');
}

describe('hostile: a purge from a newer schema', () => {
  it('OPS-10 OPS-11 GUAR-26: a purge op stamped with a newer schema version is never held: the v1 node erases the record at once, its log keeps no payload of it', async () => {
    const { h, d } = await hostAndDialer(URL, { hub: { schema: v2 }, dialer: { schema: v1 } });
    // The purge must reach d as an op of its feed: the first contact's bootstrap is over before anything is written.
    // (Written earlier, the record can be purged while that bootstrap runs: the purge then comes as a purged merge, the next test.)
    const booted = new Promise((resolve) => d.sync.on('bootstrap', resolve));
    await d.sync.addNode({ url: URL, token: 't' });
    await booted;
    const id = await d.insert({ $type: 'Note', title: 'secret', tags: [] });
    await until(async () => h.s.has(id), [d, h.s]);
    await h.s.purge(id);
    const purgeOp = entriesOf(h.s, id).find((e) => e.op.type === 'purge')?.op;
    expect(purgeOp?.v).toBe(2);
    await until(() => entriesOf(d, id).some((e) => e.op.type === 'purge'), [d, h.s]);
    await erased(d, id);
    await closeAll(d, h.s);
  });

  it('OPS-10 GUAR-26 BOOT-4: a purge a v2 host made before the v1 node\'s bootstrap comes as a purged merge; it is never held either and erases the record', async () => {
    let beforeBootstrap = async () => true;
    const hooks = { beforeBootstrap: () => beforeBootstrap() };
    const { h, d } = await hostAndDialer(URL, { hub: { schema: v2 }, dialer: { schema: v1, sync: { hooks } } });
    const id = await d.insert({ $type: 'Note', title: 'secret', tags: [] });
    // Hello pushes the record before the feed opens; the host purges it before the first page of the snapshot is asked for.
    beforeBootstrap = async () => {
      await h.s.purge(id);
      return true;
    };
    const booted = new Promise((resolve) => d.sync.on('bootstrap', resolve));
    await d.sync.addNode({ url: URL, token: 't' });
    await booted;
    expect(entriesOf(d, id).map((e) => e.op.type)).toEqual(['write', 'merge']);
    await erased(d, id);
    await closeAll(d, h.s);
  });
});
