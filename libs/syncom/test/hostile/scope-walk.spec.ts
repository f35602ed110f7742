import { internals } from '../../src/testing/internals';
import type { OpenOptions, Op } from '../../src';
import { hub, node } from '../sync/helpers';
import { craft, greet, push, record } from '../sync/scenario-helpers';

const team = (_id: string, d: Record<string, unknown>) => (typeof d.team === 'string' ? d.team : '*');

/**
 * A page's scope walk judges each op on the record as the page's earlier ops
 * leave it. An earlier op the page then drops must not leave a later one
 * judged on a record that never was: the ops below, pushed by a peer granted
 * only scope a, would put a record in scope b.
 */
describe('hostile: a page whose earlier op is dropped after the scope walk', () => {
  async function setup(extra: Partial<OpenOptions> = {}) {
    const h = await hub({ exactScopes: true }, { sync: { scope: team, signatures: 'require' }, ...extra });
    const writer = await node({ sync: { signatures: 'require' } });
    const ctx = await greet(h.unit, writer, ['a']);
    return { h, writer, ctx };
  }

  it('SCOPE-12 SCOPE-14: a newer write of the record in a, dropped as a gap, does not carry an older write into b', async () => {
    const { h, writer, ctx } = await setup();
    const refused = record(h.s, 'refused');
    const into = craft(writer, { type: 'write', id: 'x', data: { team: 'b', injected: true } }, 'a', 1);
    const cover = craft(writer, { type: 'write', id: 'x', data: { team: 'a' } }, 'a', 99);
    expect(await push(h.unit, ctx, [cover, into])).toMatchObject({ applied: 0, gaps: 1, outOfScope: 1 });
    expect(await h.s.get('x')).toBeUndefined();
    expect(refused).toEqual([{ node: writer.id, reason: 'scope', count: 1 }]);
    await Promise.all([h.s.close(), writer.close()]);
  });

  it('SCOPE-12 SCOPE-14: nor a set that moves the writer\'s own record of a to b', async () => {
    const { h, writer, ctx } = await setup();
    expect(await push(h.unit, ctx, [craft(writer, { type: 'write', id: 'z', data: { team: 'a', v: 1 } }, 'a', 1)])).toMatchObject({ applied: 1 });
    const move = craft(writer, { type: 'set', id: 'z', data: { team: 'b' } }, 'a', 2);
    const cover = craft(writer, { type: 'set', id: 'z', data: { team: 'a' } }, 'a', 50);
    expect(await push(h.unit, ctx, [cover, move])).toMatchObject({ applied: 0, gaps: 1, outOfScope: 1 });
    expect(await h.s.get('z')).toEqual({ team: 'a', v: 1 });
    await Promise.all([h.s.close(), writer.close()]);
  });

  it('SCOPE-12 SCOPE-14 GUAR-25: nor one that beforeApply declines (logged, not applied); the refusal is a gap of the stream there, as any scope refusal', async () => {
    const decline = (op: Op) => (op.data as { cover?: boolean } | undefined)?.cover === true;
    const { h, writer, ctx } = await setup({ hooks: { beforeApply: ({ op }) => !decline(op) } });
    const into = craft(writer, { type: 'write', id: 'x', data: { team: 'b' } }, 'a', 2);
    const cover = craft(writer, { type: 'write', id: 'x', data: { team: 'a', cover: true } }, 'a', 1);
    const plain = craft(writer, { type: 'write', id: 'w', data: { team: 'a' } }, 'a', 3);
    expect(await push(h.unit, ctx, [cover, into, plain])).toMatchObject({ applied: 0, skipped: 1, outOfScope: 1, gaps: 1 });
    expect(await h.s.get('x')).toBeUndefined();
    expect(await h.s.get('w')).toBeUndefined();
    await Promise.all([h.s.close(), writer.close()]);
  });
});

describe('hostile: a held op after a dropped one', () => {
  it('SCOPE-12 SCOPE-14: an op held for a newer schema is judged on the record it meets before it is logged (held ops are logged and relayed)', async () => {
    const h = await hub({ exactScopes: true }, { schema: { version: 1, ahead: 'hold', types: {} }, sync: { scope: team, signatures: 'require' } });
    const writer = await node({ sync: { signatures: 'require' } });
    const ctx = await greet(h.unit, writer, ['a']);
    const into = craft(writer, { type: 'write', id: 'x', data: { team: 'b', injected: true }, v: 2 } as Partial<Op> as Op, 'a', 1);
    const cover = craft(writer, { type: 'write', id: 'x', data: { team: 'a' } }, 'a', 99);
    expect(await push(h.unit, ctx, [cover, into])).toMatchObject({ gaps: 1, outOfScope: 1 });
    expect(internals(h.s).log.read(0).map((e) => e.op.id)).toEqual([]);
    await Promise.all([h.s.close(), writer.close()]);
  });
});

describe('hostile: an origin that reads as another stream', () => {
  it('SIG-13 GUAR-3: under verify, a global op whose origin is "<node>@a" is malformed: it cannot take node\'s seqs of scope a from a peer of another scope', async () => {
    const h = await hub({}, { sync: { scope: team } });
    const victim = await node({ sync: { scope: team } });
    const attacker = await node();
    const squat = { origin: `${victim.id}@a`, seq: 1, ts: Date.now(), type: 'write', id: 'g1', data: { note: 'global' } } as Op;
    const bootstrapLike = { ...squat, origin: `${victim.id}<x`, id: 'g2' } as Op;
    expect(await push(h.unit, await greet(h.unit, attacker, ['b']), [squat, bootstrapLike])).toMatchObject({ applied: 0, malformed: 2 });
    const real = craft(victim, { type: 'write', id: 'a1', data: { team: 'a', mine: true } }, 'a', 1);
    expect(await push(h.unit, await greet(h.unit, victim, ['a']), [real])).toMatchObject({ applied: 1, duplicates: 0 });
    expect(await h.s.get('a1')).toEqual({ team: 'a', mine: true });
    await Promise.all([h.s.close(), victim.close(), attacker.close()]);
  });
});
