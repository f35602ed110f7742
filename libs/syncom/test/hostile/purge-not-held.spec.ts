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

describe('hostile: a purge from a newer schema', () => {
  it('OPS-10 OPS-11 GUAR-26: a purge op stamped with a newer schema version is never held: the v1 node erases the record at once, its log keeps no payload of it', async () => {
    const { h, d } = await hostAndDialer(URL, { hub: { schema: v2 }, dialer: { schema: v1 } });
    await d.sync.addNode({ url: URL, token: 't' });
    const id = await d.insert({ $type: 'Note', title: 'secret', tags: [] });
    await until(async () => h.s.has(id), [d, h.s]);
    await h.s.purge(id);
    const purgeOp = entriesOf(h.s, id).find((e) => e.op.type === 'purge')?.op;
    expect(purgeOp?.v).toBe(2);
    await until(() => entriesOf(d, id).some((e) => e.op.type === 'purge'), [d, h.s]);
    await internals(d).committer.idle();
    expect(await d.has(id)).toBe(false);
    expect(entriesOf(d, id).filter((e) => e.flags & FLAG_HELD)).toEqual([]);
    expect(JSON.stringify(entriesOf(d, id).map((e) => e.op))).not.toContain('secret');
    await closeAll(d, h.s);
  });
});
