import fc from 'fast-check';
import { applyPeerOps, signOp, type Op, type Storage } from '../../src';
import { baseFor, wholeVector, type VectorBase } from '../../src/sync/dial/dialer-hello';
import { servedVector } from '../../src/sync/protocol/scopes';
import { checkHelloAnswer } from '../../src/sync/protocol/hello';
import { MAX_DELTA_ENTRIES } from '../../src/sync/host/vector-delta';
import { internals } from '../../src/testing/internals';
import { newSigningKey } from '../../src/testing/signing-key';
import type { HostUnit } from '../../src/link';
import { spyUnit, type Wire } from '../sealed/helpers';
import { closeAll, dialer, hub, Net, node, until } from './helpers';
import { dialerOf, helloOf, opsOf, reopen } from './scenario-helpers';

const byField = (_id: string, data: Record<string, unknown>) => (typeof data.s === 'string' ? data.s : '*');

/** One write each by `n` fresh origins, signed, as a page from elsewhere. */
function foreignOps(n: number, s = '*'): Op[] {
  return Array.from({ length: n }, (_, i) => {
    const { key, node: origin } = newSigningKey();
    return signOp({ origin, seq: 1, ts: 1_000 + i, type: 'write', id: `${origin}:1`, ...(s !== '*' && { scope: s }), data: { i, ...(s !== '*' && { s }) } } as Op, key);
  });
}

/** Greets `unit` by hand as `p` would, naming the mark of `base`; the host's vector made whole, and the next base. */
async function greetWith(unit: HostUnit, p: Storage, base: VectorBase | undefined, scopes: readonly string[] = ['*']) {
  // As a link carries it: the unit answers with the log's own vector object.
  const sent = await unit.call('hello', helloOf(p, [...scopes], { token: 't', vector: {}, ...(base && { vectorSince: base.mark }) }), {});
  const ans = checkHelloAnswer(JSON.parse(JSON.stringify(sent)));
  return { ans, ...wholeVector(ans, base, scopes) };
}

describe('hello answers the vector entries changed since the dialer last greeted', () => {
  it('PROTO-4: after any run of writes (several origins and scopes), restarts, raised own streams and hellos of some scopes, the dialer holds the host\'s vector of its scopes', async () => {
    const writers = await Promise.all([0, 1, 2].map(() => node({ sync: { scope: byField } })));
    let deltasSeen = 0;
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), who: fc.integer({ min: 0, max: 3 }), s: fc.constantFrom('*', 'A', 'B'), n: fc.integer({ min: 1, max: 3 }) }) },
            { weight: 3, arbitrary: fc.record({ kind: fc.constant('hello' as const), scopes: fc.constantFrom(['*'], ['*'], ['A'], ['A', 'B']) }) },
            { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('restart' as const, 'raise' as const, 'forget' as const) }) },
          ),
          { maxLength: 24 },
        ),
        async (steps) => {
          let h = await hub({}, { sync: { scope: byField } });
          const sent = writers.map(() => 0);
          let base: VectorBase | undefined;
          let deltas = 0;
          try {
            for (const step of [...steps, { kind: 'hello' as const, scopes: ['*'] }]) {
              if (step.kind === 'write') {
                const w = step.who === 3 ? h.s : writers[step.who];
                for (let i = 0; i < step.n; i++) await w.insert(step.s === '*' ? { x: i } : { x: i, s: step.s });
                if (step.who < 3) {
                  const ops = opsOf(w).slice(sent[step.who]);
                  sent[step.who] += ops.length;
                  const r = await applyPeerOps(h.s, ops, { via: { url: 'memory://w', node: w.id } });
                  expect(r.applied).toBe(ops.length);
                }
              } else if (step.kind === 'restart') {
                await h.s.close();
                const s = await reopen(h.s, { sync: { scope: byField } });
                h = { s, unit: s.sync.unit({ access: 'public', authorize: (_c, x) => x.token === 't' }) };
              } else if (step.kind === 'raise') {
                const k = h.s.id;
                h.s.replica.raiseOwnStreams({ [k]: (internals(h.s).log.vector[k] ?? 0) + 2 });
              } else if (step.kind === 'forget') {
                base = undefined;
              } else if (step.kind === 'hello') {
                const r = await greetWith(h.unit, writers[0], baseFor(base, step.scopes), step.scopes);
                if (r.ans.vectorSince !== undefined) {
                  deltas++;
                  if (Object.keys(r.ans.vector).length > 0) nonEmpty++;
                }
                expect(r.vector).toEqual(servedVector(internals(h.s).log.vector, step.scopes));
                base = r.base;
              }
            }
            deltasSeen += deltas;
          } finally {
            await h.s.close();
          }
        },
      ),
      // A fixed seed: the counts below say the runs reached deltas, and must not depend on the draw.
      { numRuns: 40, seed: 20261205 },
    );
    // The runs answered deltas, most of them carrying moved streams.
    expect(deltasSeen).toBeGreaterThan(10);
    expect(nonEmpty).toBeGreaterThan(3);
    await closeAll(...writers);
  });

  it('PROTO-4: an answer against a mark holds the streams that moved since, at their seqs; an unknown, foreign or too old mark gets the whole vector', async () => {
    const h = await hub();
    const p = await node();
    await applyPeerOps(h.s, foreignOps(50), { via: { url: 'memory://x', node: 'x' } });
    const first = await greetWith(h.unit, p, undefined);
    expect(first.ans.vectorSince).toBeUndefined();
    expect(Object.keys(first.ans.vector)).toHaveLength(50);
    const id = await h.s.insert({ x: 1 });
    await h.s.update(id, { x: 2 });
    const second = await greetWith(h.unit, p, first.base);
    expect(second.ans.vectorSince).toBe(first.base?.mark);
    expect(second.ans.vector).toEqual({ [h.s.id]: 2 });
    expect(second.vector).toEqual(internals(h.s).log.vector);
    // Nothing moved: an empty delta.
    const third = await greetWith(h.unit, p, second.base);
    expect(third.ans.vector).toEqual({});
    // An own stream raised past what the log holds (REWOUND) moves without an entry: the next answer is whole.
    h.s.replica.raiseOwnStreams({ [h.s.id]: 7 });
    const raised = await greetWith(h.unit, p, third.base);
    expect(raised.ans.vectorSince).toBeUndefined();
    expect(raised.vector[h.s.id]).toBe(7);
    // Marks this process never gave: another nonce, a head ahead of the log, no number.
    const [nonce] = (third.base as VectorBase).mark.split('.');
    for (const mark of ['other.1', `${nonce}.999`, `${nonce}.x`, `${nonce}`, `${nonce}.-1`]) {
      const r = await greetWith(h.unit, p, { mark, vector: {}, scopes: '*' });
      expect(r.ans.vectorSince).toBeUndefined();
      expect(r.vector).toEqual(internals(h.s).log.vector);
    }
    // More entries since the mark than a delta walks: whole.
    const before = third.base as VectorBase;
    const many = Array.from({ length: MAX_DELTA_ENTRIES + 1 }, (_, i) => ({ x: i }));
    await Promise.all(many.map((d) => h.s.insert(d)));
    const past = await greetWith(h.unit, p, before);
    expect(past.ans.vectorSince).toBeUndefined();
    expect(past.vector).toEqual(internals(h.s).log.vector);
    await closeAll(h.s, p);
  });

  it('PROTO-4: a host whose vector has more streams than entries were logged since the mark answers the delta, even past 8,192 entries', async () => {
    // Unsigned, so that 9,192 origins need no keys: the host checks no signature.
    const h = await hub({}, { sync: { signatures: false } });
    const p = await node();
    const ops = Array.from({ length: MAX_DELTA_ENTRIES + 1000 }, (_, i) => ({ origin: `origin-${i}`, seq: 1, ts: 1_000 + i, type: 'write', id: `r${i}`, data: { i } }) as Op);
    expect((await applyPeerOps(h.s, ops, { via: { url: 'memory://x', node: 'x' } })).applied).toBe(ops.length);
    const first = await greetWith(h.unit, p, undefined);
    await Promise.all(Array.from({ length: MAX_DELTA_ENTRIES + 500 }, (_, i) => h.s.insert({ i })));
    const next = await greetWith(h.unit, p, first.base);
    expect(next.ans.vectorSince).toBe(first.base?.mark);
    expect(next.ans.vector).toEqual({ [h.s.id]: MAX_DELTA_ENTRIES + 500 });
    expect(next.vector).toEqual(internals(h.s).log.vector);
    await closeAll(h.s, p);
  }, 60_000);

  it('PROTO-4, SCOPE-20: a hello of some scopes is answered the streams of those scopes and the global ones, whole and since a mark; other scopes ask whole', async () => {
    const h = await hub({}, { sync: { scope: byField } });
    const p = await node();
    for (const s of ['A', 'B', 'secret-tenant']) await applyPeerOps(h.s, foreignOps(3, s), { via: { url: 'memory://x', node: 'x' } });
    await applyPeerOps(h.s, foreignOps(2), { via: { url: 'memory://x', node: 'x' } });
    const first = await greetWith(h.unit, p, undefined, ['A']);
    expect(Object.keys(first.ans.vector)).toHaveLength(5);
    expect(first.vector).toEqual(servedVector(internals(h.s).log.vector, ['A']));
    expect(JSON.stringify(first.ans)).not.toContain('secret-tenant');
    await h.s.insert({ x: 1, s: 'secret-tenant' });
    await h.s.insert({ x: 2, s: 'A' });
    const next = await greetWith(h.unit, p, first.base, ['A']);
    expect(next.ans.vectorSince).toBe(first.base?.mark);
    expect(next.ans.vector).toEqual({ [`${h.s.id}@A`]: 1 });
    expect(next.vector).toEqual(servedVector(internals(h.s).log.vector, ['A']));
    // The dialer's scopes changed: its kept vector is of other scopes, and it asks whole.
    expect(baseFor(next.base, ['A', 'B'])).toBeUndefined();
    expect(baseFor(next.base, ['A'])).toBe(next.base);
    await closeAll(h.s, p);
  });

  it('PROTO-4: an answer that claims to be a delta against a mark the dialer did not send is taken as it is, and the next hello asks whole', () => {
    const base: VectorBase = { mark: 'n.5', vector: { a: 3, b: 2 }, scopes: '*' };
    const odd = wholeVector({ node: 'h', vector: { a: 4 }, epoch: 'e', floor: 0, schema: null, version: 1, caps: [], vectorMark: 'n.9', vectorSince: 'n.4' }, base, ['*']);
    // What the answer lacks reads as not held there: the dialer pushes more than needed, never less.
    expect(odd).toEqual({ vector: { a: 4 } });
    const none = wholeVector({ node: 'h', vector: { a: 4 }, epoch: 'e', floor: 0, schema: null, version: 1, caps: [], vectorSince: 'n.5' }, undefined, ['*']);
    expect(none).toEqual({ vector: { a: 4 } });
    // An older host names no mark: nothing to keep.
    expect(wholeVector({ node: 'h', vector: { a: 4 }, epoch: 'e', floor: 0, schema: null, version: 1, caps: [] }, base, ['*'])).toEqual({ vector: { a: 4 } });
  });

  it('PROTO-4, BOOT-11: a vector a host adopted by bootstrapping from another node travels in the next delta', async () => {
    const net = new Net();
    const far = await hub();
    await applyPeerOps(far.s, foreignOps(20), { via: { url: 'memory://x', node: 'x' } });
    net.units.set('memory://far', far.unit);
    const h = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const unit = h.sync.unit({ access: 'public', authorize: (_c, x) => x.token === 't' });
    const p = await node();
    const first = await greetWith(unit, p, undefined);
    await h.sync.addNode({ url: 'memory://far', token: 't' });
    await until(() => Object.keys(internals(h).log.vector).length >= 20, [h, far.s]);
    // The foreign streams came in as a vector an advance op granted, not as ops of theirs.
    expect(internals(h).log.read(0).some((e) => e.op.type === 'advance' && e.op.vector !== undefined)).toBe(true);
    const next = await greetWith(unit, p, first.base);
    expect(next.ans.vectorSince).toBe(first.base?.mark);
    expect(next.vector).toEqual(internals(h).log.vector);
    await closeAll(h, far.s, p);
  });

  it('PROTO-4: a dialer that reconnects to a host of 2,000 origins is answered a few hundred bytes, and its vector is the host\'s', async () => {
    const net = new Net();
    const h = await hub();
    await applyPeerOps(h.s, foreignOps(2000), { via: { url: 'memory://x', node: 'x' } });
    const wire: Wire = { calls: [], answers: [] };
    net.units.set('memory://h', spyUnit(h.unit, wire));
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const mine = await d.insert({ x: 1 });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(async () => (await h.s.has(mine)) && d.sync.peers()[0]?.connected === true, [d, h.s]);
    const helloAnswers = () => wire.answers.filter((a) => a.includes('"vectorMark"'));
    expect(helloAnswers()).toHaveLength(1);
    expect(helloAnswers()[0].length).toBeGreaterThan(2000 * 40);
    // The link drops and comes back: the dialer greets again with the mark it kept.
    net.links[0].cut();
    net.links[0].restore();
    await until(() => helloAnswers().length === 2 && d.sync.peers()[0]?.connected === true, [d, h.s]);
    expect(helloAnswers()[1].length).toBeLessThan(600);
    expect(dialerOf(d, 'memory://h').hv).toEqual(internals(h.s).log.vector);
    await closeAll(d, h.s);
  });
});
