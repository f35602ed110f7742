import { createClock } from '../../src';
import { MAX_TS } from '../../src/op';
import { errors, logOps, node, ship } from './helpers';
import { craft } from '../sync/scenario-helpers';

describe('clocks', () => {
  it('CLK-1: ts is Date.now() in UTC ms; the time zone never changes it', async () => {
    const before = Date.now();
    const { s } = await open0();
    await s.insert({});
    const ts = logOps(s)[0].ts;
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(Date.now() + 1);
    const tz = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    const c = createClock(() => 1_700_000_000_000);
    expect(c.next()).toBe(1_700_000_000_000);
    process.env.TZ = tz;
  });

  it('CLK-5: own stamps never run backwards, even with the wall clock set back; each is strictly above the last', async () => {
    const n = await node(10_000);
    await n.s.insert({});
    n.clock.t = 5_000;
    await n.s.insert({});
    await n.s.insert({});
    const ts = logOps(n.s).map((o) => o.ts);
    expect(ts).toEqual([10_000, 10_001, 10_002]);
  });

  it('CLK-6 CLK-9: after a peer op stamped ahead, the next local op outranks it (a write after a read wins)', async () => {
    const ahead = await node(1_000 + 3_600_000);
    const local = await node(1_000);
    await ahead.s.set('r', { title: 'from the future' });
    await ship(ahead.s, local.s);
    await local.s.update('r', { title: 'mine' });
    expect(logOps(local.s).at(-1)!.ts).toBeGreaterThan(logOps(ahead.s)[0].ts);
    await ship(local.s, ahead.s);
    expect(await ahead.s.get('r')).toEqual({ title: 'mine' });
  });

  it('CLK-8: a reopen seeds the clock from the log', async () => {
    const { createMemoryBackend, open } = await import('../../src');
    const backend = createMemoryBackend();
    let t = 50_000;
    const s = await open({ path: 'c', backend, now: () => t });
    await s.insert({});
    await s.close();
    t = 1_000;
    const again = await open({ path: 'c', backend, now: () => t });
    await again.insert({});
    expect(logOps(again).at(-1)!.ts).toBeGreaterThan(50_000);
  });

  it('CLK-2 CLK-10: concurrent writes go to the higher ts on both sides; skewed clocks still agree', async () => {
    const a = await node(1_000);
    const b = await node(900_000);
    await a.s.set('r', { v: 'a' });
    await b.s.set('r', { v: 'b' });
    await ship(a.s, b.s);
    await ship(b.s, a.s);
    expect(await a.s.get('r')).toEqual({ v: 'b' });
    expect(await b.s.get('r')).toEqual({ v: 'b' });
  });

  it('CLK-3 CLK-4: ops from one origin apply in seq order; an equal ts is settled by the greater origin', async () => {
    const a = await node(1_000);
    const b = await node(1_000);
    await a.s.set('r', { v: 'a' });
    await b.s.set('r', { v: 'b' });
    await ship(a.s, b.s);
    await ship(b.s, a.s);
    const winner = a.s.id > b.s.id ? 'a' : 'b';
    expect(await a.s.get('r')).toEqual({ v: winner });
    expect(await b.s.get('r')).toEqual({ v: winner });
    const c = await node(1_000);
    await a.s.update('r', { n: 2 });
    const res = await ship(a.s, c.s, logOps(a.s).filter((o) => o.origin === a.s.id && o.seq === 2));
    expect(res.gaps).toBe(1);
    expect(await c.s.has('r')).toBe(false);
  });

  it('CLK-5 GUAR-5: with maxSkew Infinity a peer\'s stamp past the latest date is still refused (SKEW), and the clock stays where it was: taken, its next own stamps ran past the safe integers, where no peer takes an op', async () => {
    const far = await node(1_000);
    const local = await node(1_000, { sync: { maxSkew: Infinity } });
    const seen = errors(local.s);
    // A peer's op stamped near the top of the safe integers (its own clock would refuse to make one).
    const op = craft(far.s, { type: 'write', id: 'r', data: { title: 'from the end of time' }, ts: Number.MAX_SAFE_INTEGER - 10 }, '*', 1);
    const res = await ship(far.s, local.s, [op]);
    expect(res).toMatchObject({ applied: 0, malformed: 1 });
    expect(seen.map((e) => e.code)).toEqual(['SKEW']);
    await local.s.set('q', { title: 'mine' });
    expect(logOps(local.s).at(-1)!.ts).toBe(1_000);
    // Within the latest date, Infinity takes it: the spec's setting, unchanged.
    const late = await node(8_000_000_000_000_000);
    await late.s.set('s', { title: 'far but a date' });
    expect(await ship(late.s, local.s)).toMatchObject({ applied: 1 });
  });

  it('CLK-1: a wall clock in fractions of a ms is cut to whole ms; one that reads no number fails the write with INVALID_ARGUMENT; a clock with no stamp left up to the latest date fails it with OP_INVALID', async () => {
    const { createMemoryBackend, open } = await import('../../src');
    let t = 1_700_000_000_000.5;
    const s = await open({ path: 'f', backend: createMemoryBackend(), now: () => t });
    await s.insert({});
    await s.insert({});
    expect(logOps(s).map((o) => o.ts)).toEqual([1_700_000_000_000, 1_700_000_000_001]);
    t = NaN;
    await expect(s.insert({})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    t = 1_700_000_000_002;
    await s.insert({});
    expect(logOps(s)).toHaveLength(3);
    await s.close();
    const end = createClock(() => 0, Number.MAX_SAFE_INTEGER);
    expect(() => end.next()).toThrow(expect.objectContaining({ code: 'OP_INVALID' }));
    // Stamps stop at the latest date, which peers take, not at the safe integers: past it every peer refuses the op.
    const last = createClock(() => 0, MAX_TS - 1);
    expect(last.next()).toBe(MAX_TS);
    expect(() => last.next()).toThrow(expect.objectContaining({ code: 'OP_INVALID' }));
  });

  it('CLK-1: open() reads the wall clock as a write does: one that throws or reads no finite number fails open() with INVALID_ARGUMENT, and the path is left free', async () => {
    const { createMemoryBackend, open } = await import('../../src');
    const backend = createMemoryBackend();
    const boom = new Error('clock broke');
    const bad: Array<() => number> = [() => { throw boom; }, () => NaN, () => Infinity];
    for (const now of bad) await expect(open({ path: 'w', backend, now })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(open({ path: 'w', backend, now: bad[0] })).rejects.toMatchObject({ cause: boom });
    // Refused before anything was written or locked: the same path opens with a working clock.
    const s = await open({ path: 'w', backend, now: () => 5_000 });
    await s.insert({});
    expect(logOps(s).map((o) => o.ts)).toEqual([5_000]);
    await s.close();
  });
});

async function open0() {
  const { open } = await import('../../src');
  return { s: await open({ path: 'tz', backend: 'memory' }) };
}
