import type { SyncomError } from '../../src';
import { FrozenItems } from '../../src/reconcile/item-set';
import type { Message, Range } from '../../src/reconcile';
import { closeAll, dialer, hub, Net } from '../sync/helpers';
import { wrapUnit } from '../sync/scenario-helpers';

/**
 * Hostile catalogue, a host's reconcile answers against the dialer's work.
 * The dialer is the initiator: it reads each range of an answer over its own
 * items between that range's bounds, which the host chooses. An items range
 * over the whole key space (`[null, 3, []]`, "I hold none of it") makes it
 * compare every record it holds; an honest host sends one only over a range
 * the dialer asked about, and a range once answered so is never asked
 * again. A host answering every round with that range behind a fingerprint
 * that never matches (66 bytes) had the dialer compare its whole set at
 * each of the 64 rounds a run may take. Counted as the tags read from the
 * dialer's set (FrozenItems.tag), against an honest "I hold none of it" in
 * the same test, never by the clock.
 */

const URL = 'memory://h';
const RECORDS = 2_000;
const NEVER = 'AAAAAAAAAAAAAAAAAAAAAA';

type Answer = (round: number, asked: Message) => Message;

/** Bytes of a message's JSON (ASCII here). */
const bytes = (m: Message) => JSON.stringify(m).length;

/** A dialer of RECORDS records registered with a hub whose reconcile answers `answer` gives once `hostile` is set. */
async function setup(answer: Answer) {
  const h = await hub();
  const state = { hostile: false, rounds: 0 };
  const unit = wrapUnit(h.unit, async (method, args, _context, next) => {
    if (method !== 'reconcile' || !state.hostile) return next();
    const a = args as { msg: Message; start?: boolean };
    const msg = answer(state.rounds++, a.msg);
    return a.start ? { ...((await next()) as object), msg } : { msg };
  });
  const net = new Net();
  net.units.set(URL, unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
  for (let i = 0; i < RECORDS; i += 500) await Promise.all(Array.from({ length: 500 }, (_, k) => d.insert({ i: i + k })));
  const booted = new Promise<void>((resolve) => { const off = d.sync.on('bootstrap', () => { off(); resolve(); }); });
  await d.sync.addNode({ url: URL, token: 't' });
  await booted;
  await d.sync.synced(URL);
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  return { h, d, state, errors };
}

/**
 * The tags read from reconciliation sets while one anti-entropy run goes, with the rounds it took and what it
 * reported; `late`, the bytes the dialer asked and the tags it read once the answer of round `from` was in.
 */
async function run(answer: Answer, from = Infinity) {
  const late = { asked: 0, tags: 0 };
  const { h, d, state, errors } = await setup((round, asked) => {
    if (round > from) late.asked += bytes(asked);
    return answer(round, asked);
  });
  const real = FrozenItems.prototype.tag;
  let tags = 0;
  const spy = jest.spyOn(FrozenItems.prototype, 'tag').mockImplementation(function (this: FrozenItems, k: number) {
    tags++;
    if (state.rounds > from) late.tags++;
    return real.call(this, k);
  });
  try {
    state.hostile = true;
    await d.sync.forceSync();
    return { tags, rounds: state.rounds, errors: errors.map((e) => e.code), late };
  } finally {
    spy.mockRestore();
    await closeAll(d, h.s);
  }
}

/** Every round: a fingerprint that never matches before the first record (the dialer asks its tags again), then "I hold none" over the rest. */
const rehash: Answer = () => ({ v: 1, ranges: [[[1, ''], 1, NEVER], [null, 3, []]] });
/** Every ask answered with a fingerprint that never matches, down to lists of tags; from round DESCENT on, "my frame is full" before answering any. */
const DESCENT = 4;
const stall: Answer = (round, asked) => {
  if (round >= DESCENT) return { v: 1, ranges: [[null, 5]] };
  return { v: 1, ranges: asked.ranges.map((r): Range => (r[1] === 0 ? r : [r[0], 1, NEVER])) };
};
/** An honest host holding none of the dialer's records: its items, none, over the one range asked. */
const empty: Answer = () => ({ v: 1, ranges: [[null, 3, []]] });

describe('hostile host: reconcile answers over ranges the dialer did not ask about', () => {
  it('RECON: a run reads each of the dialer\'s records about as often as an honest "I hold none of it" makes it (a 66-byte answer had it compare every record at each of 64 rounds)', async () => {
    const honest = await run(empty);
    expect(honest.rounds).toBe(1);
    expect(honest.tags).toBeGreaterThanOrEqual(RECORDS);
    const hostile = await run(rehash);
    // Refused as soon as an answer strays outside what was asked: reported, not taken.
    expect(hostile.errors).toContain('RECONCILE_MALFORMED');
    expect(hostile.tags).toBeLessThanOrEqual(2 * honest.tags);
  }, 60_000);

  it('RECON: a host that defers what it was asked gets asked at most twice what it answered before (an answer of 27 bytes had the dialer send every tag of its set again, 64 times a run)', async () => {
    const r = await run(stall, DESCENT);
    expect(r.errors).toContain('RECONCILE_UNFINISHED');
    // Before: each of the 60 rounds past the descent asked all 2,000 tags again (54 KB, 2,000 tags read a round).
    const rounds = r.rounds - DESCENT - 1;
    expect(r.late.tags).toBeLessThanOrEqual(RECORDS);
    expect(r.late.asked).toBeLessThanOrEqual(rounds * 2048);
  }, 60_000);
});
