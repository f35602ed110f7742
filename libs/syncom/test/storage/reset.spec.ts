import { errors, logOps, node, ship, type TestNode } from './helpers';

/** Two nodes that share record 'r' = { a: 1 } (written at 1000); then a's clock is ta, b's tb. */
async function pair(ta: number, tb: number): Promise<[TestNode, TestNode]> {
  const a = await node(1_000);
  const b = await node(1_000);
  await a.s.set('r', { a: 1 });
  await ship(a.s, b.s);
  a.clock.t = ta;
  b.clock.t = tb;
  return [a, b];
}

/** Deliver both ways, in the order given. */
async function exchange(first: TestNode, second: TestNode) {
  await ship(first.s, second.s);
  await ship(second.s, first.s);
}

describe('whole-record writes and deletes', () => {
  for (const order of ['reset first', 'update first'] as const) {
    it(`RESET-1: a concurrent update() older than set() loses its fields on both nodes (${order})`, async () => {
      const [a, b] = await pair(5_000, 3_000);
      await a.s.set('r', { s: 1 });
      await b.s.update('r', { u: 1 });
      await (order === 'reset first' ? exchange(a, b) : exchange(b, a));
      for (const n of [a, b]) expect(await n.s.get('r')).toEqual({ s: 1 });
    });

    it(`RESET-2: a concurrent update() newer than set() keeps its fields on both nodes (${order})`, async () => {
      const [a, b] = await pair(3_000, 5_000);
      await a.s.set('r', { s: 1 });
      await b.s.update('r', { u: 1 });
      await (order === 'reset first' ? exchange(a, b) : exchange(b, a));
      for (const n of [a, b]) expect(await n.s.get('r')).toEqual({ s: 1, u: 1 });
    });

    it(`RESET-3: delete() resets the same way: older update lost, newer kept (${order})`, async () => {
      const [a, b] = await pair(5_000, 3_000);
      await a.s.delete('r');
      await b.s.update('r', { u: 1 });
      await (order === 'reset first' ? exchange(a, b) : exchange(b, a));
      for (const n of [a, b]) expect(await n.s.get('r')).toBeUndefined();
      const [c, d] = await pair(3_000, 5_000);
      await c.s.delete('r');
      await d.s.update('r', { u: 1 });
      await (order === 'reset first' ? exchange(c, d) : exchange(d, c));
      for (const n of [c, d]) expect(await n.s.get('r')).toEqual({ u: 1 });
    });

    it(`RESET-7: a reset and a concurrent remove give the same set whichever lands first (${order})`, async () => {
      const [a, b] = await pair(3_000, 3_000);
      await a.s.add('r', 'tags', ['x', 'y']);
      await ship(a.s, b.s);
      await a.s.set('r', { a: 2 });
      await b.s.remove('r', 'tags', ['x']);
      await b.s.add('r', 'tags', ['z']);
      await (order === 'reset first' ? exchange(a, b) : exchange(b, a));
      expect(await a.s.get('r')).toEqual(await b.s.get('r'));
    });
  }

  it('RESET-4 RESET-5: a tombstone hides the record; a newer write brings it back on every node', async () => {
    const [a, b] = await pair(1_000, 1_000);
    await a.s.delete('r');
    await ship(a.s, b.s);
    expect(await b.s.has('r')).toBe(false);
    b.clock.t = 9_000;
    await b.s.set('r', { back: true });
    await ship(b.s, a.s);
    for (const n of [a, b]) expect(await n.s.get('r')).toEqual({ back: true });
  });

  /** Three nodes at 1,000 that all hold a's record 'r' ({}), as the counter cases start. */
  async function trio() {
    const [a, b, c] = [await node(1_000), await node(1_000), await node(1_000)];
    await a.s.set('r', {});
    await ship(a.s, b.s);
    await ship(a.s, c.s);
    return [a, b, c] as const;
  }

  it('RESET-6: documented non-convergence — a counter incremented before and after a concurrent reset may differ', async () => {
    const [a, b, c] = await trio();
    a.clock.t = 2_000;
    await a.s.inc('r', 'n', 1);
    b.clock.t = 3_000;
    await b.s.set('r', {});
    a.clock.t = 4_000;
    await a.s.inc('r', 'n', 1);
    const [set, inc1, inc2] = [logOps(b.s).at(-1)!, logOps(a.s).at(-2)!, logOps(a.s).at(-1)!];
    await ship(a.s, c.s, [inc1, inc2]);
    await ship(b.s, c.s, [set]);
    await ship(a.s, b.s, [inc1, inc2]);
    // c saw both incs before the reset: the origin's total (2, stamped after the reset) survives it.
    expect((await c.s.get('r'))!.n).toBe(2);
    // b saw the reset first: the first inc is older and lands nowhere; only the second counts.
    expect((await b.s.get('r'))!.n).toBe(1);
  });

  it('RESET-6: the same when the origin saw the reset before its second inc — ops apply in seq order per origin, not in causal order, so a node given the second inc before the reset counts the first one too', async () => {
    const [a, b, c] = await trio();
    a.clock.t = 2_000;
    await a.s.inc('r', 'n', 1);
    const inc1 = logOps(a.s).at(-1)!;
    await ship(a.s, b.s, [inc1]);
    // b resets having seen the inc; a takes the reset before its second inc: nothing here is concurrent.
    b.clock.t = 3_000;
    await b.s.set('r', {});
    const set = logOps(b.s).at(-1)!;
    await ship(b.s, a.s, [set]);
    a.clock.t = 4_000;
    await a.s.inc('r', 'n', 1);
    const inc2 = logOps(a.s).at(-1)!;
    await ship(a.s, b.s, [inc2]);
    // c takes a's stream before b's reset (a mesh where b's path to c is the slow one).
    await ship(a.s, c.s, [inc1, inc2]);
    await ship(b.s, c.s, [set]);
    expect((await a.s.get('r'))!.n).toBe(1);
    expect((await b.s.get('r'))!.n).toBe(1);
    // The running total of a's slot (2, stamped after the reset) survives it at c.
    expect((await c.s.get('r'))!.n).toBe(2);
  });

  it('RESET-8 RESET-9 RESET-10: the documented kind clash — the node that saw the write first refuses the inc; the other refuses that field of the write', async () => {
    const [a, b] = await pair(1_000, 1_000);
    a.clock.t = 2_000;
    await a.s.set('r', { views: 0, title: 't' });
    b.clock.t = 3_000;
    await b.s.inc('r', 'views', 1);
    const errA = errors(a.s);
    const errB = errors(b.s);
    await exchange(a, b);
    expect(errA).toEqual([expect.objectContaining({ code: 'OP_REFUSED', field: 'views' })]);
    expect(errB).toEqual([expect.objectContaining({ code: 'OP_REFUSED', field: 'views' })]);
    expect(await a.s.get('r')).toEqual({ views: 0, title: 't' });
    expect(await b.s.get('r')).toEqual({ views: 1, title: 't' });
  });

  it('GUAR-10 GUAR-11: a nested object is one register; update({ "a.b": 1 }) writes a top-level field a.b', async () => {
    const [a, b] = await pair(1_000, 2_000);
    await a.s.update('r', { obj: { x: 1, y: 1 } });
    await ship(a.s, b.s);
    await a.s.update('r', { obj: { x: 2, y: 1 } });
    await b.s.update('r', { obj: { x: 1, y: 2 } });
    await exchange(a, b);
    for (const n of [a, b]) expect((await n.s.get('r'))!.obj).toEqual({ x: 1, y: 2 });
    await a.s.update('r', { 'a.b': 1 });
    expect((await a.s.get('r'))!['a.b']).toBe(1);
    expect((await a.s.get('r'))!.a).toBe(1);
  });
});
