import { IsString } from 'class-validator';
import { createMemoryBackend, open, type Op } from '../../src';
import { internals } from '../../src/testing/internals';
import { logOps, node, ship } from '../storage/helpers';

class Note {
  @IsString() title?: string;
}

/** A record's entry as it is held, and its text. */
const held = (s: Parameters<typeof internals>[0], id: string) => JSON.stringify(internals(s).committer.current(id));

describe('ops held for a newer schema reach the same state as ops taken at once', () => {
  it('GUAR-26 OPS-9 OPS-10: a merge carrying a purge marker is never held (a purge needs no schema): the marker is the same whichever came first', async () => {
    const p = await node(1_000, { sync: { signatures: false } });
    await p.s.set('r', { a: 1 });
    await p.s.purge('r');
    const ops = internals(p.s).log.read(0).map((e) => e.op);
    const merge = { origin: 'mallory', seq: 1, ts: 1_500, id: 'r', type: 'merge', data: { id: 'r', latest: [1_400, 'zz'], purged: [1_400, 'zz'], v: 2, fields: {} } } as unknown as Op;
    const opts = { schema: { version: 1, types: {} }, sync: { signatures: false as const } };
    const [h1, h2] = [await node(2_000, opts), await node(2_000, opts)];
    await ship(p.s, h1.s, ops);
    await ship(p.s, h1.s, [merge]);
    await ship(p.s, h2.s, [merge]);
    await ship(p.s, h2.s, ops);
    expect(held(h2.s, 'r')).toBe(held(h1.s, 'r'));
    expect(JSON.parse(held(h1.s, 'r'))).toMatchObject({ purged: [1_400, 'zz'] });
  });

  it('GUAR-26 GUAR-12 GUAR-14: an op held under v1 is validated by v2 when the upgrade takes it, as a node on v2 all along validated it', async () => {
    const a = await node(1_000, { schema: { version: 2, types: {} } });
    await a.s.set('r', { $type: 'Note', title: 7 });
    const v2 = { version: 2, types: { Note } };
    const b = await node(2_000, { schema: v2 });
    expect(await ship(a.s, b.s)).toMatchObject({ applied: 0, skipped: 1 });
    const backend = createMemoryBackend();
    const old = await open({ path: 'o', backend, now: () => 2_000, schema: { version: 1, types: { Note } } });
    await ship(a.s, old, logOps(a.s));
    await old.close();
    const upgraded = await open({ path: 'o', backend, now: () => 3_000, schema: v2 });
    expect(await upgraded.get('r')).toBeUndefined();
    expect(await b.s.get('r')).toBeUndefined();
    await upgraded.close();
  });
});
