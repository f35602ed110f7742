import { IsOptional, Validate } from 'class-validator';
import { counted, Counted } from '../schema/counted';
import type { Op } from '../../src';
import { VALUES_PER_OP } from '../../src/sync/protocol/limits';
import { closeAll, hub, node } from '../sync/helpers';
import { greet, opsOf, push } from '../sync/scenario-helpers';

/**
 * A type change is judged as a whole record of the new type, and its verdict
 * kept for the record's state (test/schema/retype-cost.spec.ts); a token
 * holder that adds one element before each flip changes that state, so each
 * flip is judged anew and costs the record's size (docs/security.md). A host
 * with opsPerSecond charges each such judgement to the peer's bucket, one op
 * for every VALUES_PER_OP values it read: one starts only while the bucket is
 * not in debt. A page of ten such flips had the host validate the record ten
 * times in one go; now the page is taken up to the flip the rate cannot pay
 * for, answered 429, and the rest lands as the bucket refills, every verdict
 * the same. Counted: the calls of a constraint that checks each element.
 */
class Tagged { @IsOptional() @Validate(Counted, { each: true }) tags?: string[]; }
class Labelled { @IsOptional() @Validate(Counted, { each: true }) tags?: string[]; }

const RATE = 100;
const SIZE = 2 * RATE * VALUES_PER_OP;
const PAIRS = 10;

async function setup(pairs = PAIRS, interleave = true) {
  const clock = { t: Date.now() };
  const now = () => clock.t;
  const h = await hub({ limits: { opsPerSecond: RATE } }, { now, schema: { version: 1, types: { Tagged, Labelled } } });
  const writer = await node({ now });
  await writer.set('r', { $type: 'Tagged' });
  await writer.add('r', 'tags', Array.from({ length: SIZE }, (_, i) => `e${i}`));
  const built = opsOf(writer).length;
  // Each flip after an element added: a record state never judged before.
  for (let i = 0; i < pairs; i++) {
    if (interleave) await writer.add('r', 'tags', [`x${i}`]);
    await writer.update('r', { $type: i % 2 === 0 ? 'Labelled' : 'Tagged' });
  }
  const ctx = await greet(h.unit, writer);
  return { h, writer, ctx, clock, built: opsOf(writer).slice(0, built), flips: opsOf(writer).slice(built) };
}

/** Push `ops`: its answer, or the refusal it was answered with. */
async function answer(unit: Parameters<typeof push>[0], ctx: object, ops: Op[]): Promise<Record<string, unknown>> {
  return push(unit, ctx, ops).catch((e: { code: string; status: number }) => ({ code: e.code, status: e.status }));
}

describe('hostile: type changes judged anew are charged to the peer\'s rate', () => {
  it(`GUAR-3: a page of ${PAIRS} flips, each after an element added, is judged one flip per refill: taken up to the flip the rate cannot pay for, answered 429, the rest landing later with the same verdicts`, async () => {
    const { h, writer, ctx, clock, built, flips } = await setup();
    expect(await push(h.unit, ctx, built)).toMatchObject({ applied: 2 });
    counted.visits = 0;
    // The first flip is judged on a full bucket and runs it into debt; the page stops at the second, after its add.
    expect(await answer(h.unit, ctx, flips)).toEqual({ code: 'OPS_PER_SECOND', status: 429 });
    expect(counted.visits).toBe(SIZE + 1);
    const tags = (await h.s.get('r'))?.tags as string[];
    expect((await h.s.get('r'))?.$type).toBe('Labelled');
    expect(tags).toContain('x1');
    // The dialer pushes the rest again later (what it lacks at the host); each judgement waits for the bucket to refill.
    let seconds = 0;
    for (let left = flips; left.length > 0 && seconds < 100; ) {
      clock.t += 1000;
      seconds++;
      counted.visits = 0;
      const res = await answer(h.unit, ctx, left);
      expect(counted.visits).toBeLessThanOrEqual(SIZE + PAIRS);
      if (res.status === 429) continue;
      expect(res).toMatchObject({ skipped: 0 });
      left = [];
    }
    // Each judgement charged SIZE / VALUES_PER_OP = 2 s of the rate: the other nine took at least 18 s to land.
    expect(seconds).toBeGreaterThanOrEqual(2 * (PAIRS - 1));
    expect(seconds).toBeLessThan(100);
    expect(await h.s.get('r')).toEqual(await writer.get('r'));
    await closeAll(h.s, writer);
  });

  it('flips back to states judged before are not charged: a page of 40 pure flips pays for two judgements, then lands', async () => {
    const { h, writer, ctx, clock, built, flips } = await setup(40, false);
    expect(await push(h.unit, ctx, built)).toMatchObject({ applied: 2 });
    counted.visits = 0;
    let seconds = 0;
    let res = await answer(h.unit, ctx, flips);
    while (res.status === 429 && seconds < 100) {
      clock.t += 1000;
      seconds++;
      res = await answer(h.unit, ctx, flips);
    }
    expect(res).toMatchObject({ skipped: 0 });
    // One judgement of each class, each charged 2 s of the rate; the other 38 flips found a verdict kept.
    expect(counted.visits).toBe(2 * SIZE);
    expect(seconds).toBeLessThanOrEqual(6);
    expect(await h.s.get('r')).toEqual(await writer.get('r'));
    await closeAll(h.s, writer);
  });
});

describe('hostile: a page that takes the last of the bucket', () => {
  it('GUAR-3: a page of exactly a second\'s worth of ops, a type change judged anew in it, is judged at once: the page lands (it was refused at every retry, the bucket full each time)', async () => {
    const rate = 3;
    const clock = { t: Date.now() };
    const now = () => clock.t;
    const h = await hub({ limits: { opsPerSecond: rate } }, { now, schema: { version: 1, types: { Tagged, Labelled } } });
    const writer = await node({ now });
    await writer.set('r', { $type: 'Tagged' });
    await writer.add('r', 'tags', ['a', 'b']);
    const ctx = await greet(h.unit, writer);
    expect(await push(h.unit, ctx, opsOf(writer))).toMatchObject({ applied: 2 });
    await writer.add('r', 'tags', ['c']);
    await writer.add('r', 'tags', ['d']);
    await writer.update('r', { $type: 'Labelled' });
    const page = opsOf(writer).slice(2);
    expect(page).toHaveLength(rate);
    // At a full bucket the page takes its last token, and the type change starts on an empty bucket, not one in debt:
    // refused there, the dialer's every retry (a second or more apart, the bucket full again) was refused the same.
    clock.t += 1000;
    expect(await answer(h.unit, ctx, page)).toMatchObject({ applied: rate });
    expect(await h.s.get('r')).toEqual(await writer.get('r'));
    await closeAll(h.s, writer);
  });
});

describe('hostile: a page a rate stopped part-way, pushed again', () => {
  it('HOST-20: the answer to it names the streams the stopped pass took, now its duplicates, so the dialer\'s copy of the host\'s vector does not lag at them', async () => {
    const { h, writer, ctx, clock, built, flips } = await setup(2);
    const other = await node();
    await other.insert({ relayed: true });
    expect(await push(h.unit, ctx, built)).toMatchObject({ applied: 2 });
    // The relayed op and the first (add, flip) pair are taken; the second flip finds the bucket in debt.
    const page = [...opsOf(other), ...flips];
    expect(await answer(h.unit, ctx, page)).toEqual({ code: 'OPS_PER_SECOND', status: 429 });
    let res = await answer(h.unit, ctx, page);
    for (let seconds = 0; res.status === 429 && seconds < 100; seconds++) {
      clock.t += 1000;
      res = await answer(h.unit, ctx, page);
    }
    expect(res).toMatchObject({ applied: 1, duplicates: 4 });
    expect(res.vector).toEqual({ [other.id]: 1, [writer.id]: flips[flips.length - 1].seq });
    await closeAll(h.s, writer, other);
  });
});
