import { IsOptional, Validate } from 'class-validator';
import { internals } from '../../src/testing/internals';
import { VALUES_PER_OP } from '../../src/sync/protocol/limits';
import { counted, Counted } from '../schema/counted';
import { closeAll, dialer, hub, Net } from './helpers';
import { record, waitFor } from './scenario-helpers';

/**
 * A host with a schema and opsPerSecond charges a type change it judges
 * anew to the pushing peer's rate, and once that runs the bucket into debt
 * it takes the page up to that op and answers 429 (docs/security.md, A token
 * holder; test/hostile/retype-charge.spec.ts pushes by hand). Here a real
 * dialer meets it: its writes of (one element added, the type flipped)
 * pairs on a large record are refused part-way, and what the host lacks is
 * pushed again as the bucket refills (the host's clock is the test's), until
 * the host holds every op of the dialer's stream and the same record.
 */
class Tagged { @IsOptional() @Validate(Counted, { each: true }) tags?: string[]; }
class Labelled { @IsOptional() @Validate(Counted, { each: true }) tags?: string[]; }

const URL = 'memory://hub';
const RATE = 50;
/** Each judgement of the record anew is charged two seconds of the bucket. */
const SIZE = 2 * RATE * VALUES_PER_OP;
const PAIRS = 4;

describe('a dialer whose type changes a host charges to its rate (fake timers)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  it('HOST-12 HOST-16: its pushes are taken up to the flip the rate cannot pay for, answered 429, and the rest lands as the bucket refills: no op lost or applied twice, the same record at both ends', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ limits: { opsPerSecond: RATE } }, { now: () => clock.t, schema: { version: 1, types: { Tagged, Labelled } } });
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors = record(d, 'error');
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    const own = () => d.replica.vector[d.id] ?? 0;
    const held = () => internals(h.s).log.vector[d.id] ?? 0;

    await d.set('r', { $type: 'Tagged' });
    await d.add('r', 'tags', Array.from({ length: SIZE }, (_, i) => `e${i}`));
    await waitFor(() => held() === own(), [d, h.s]);
    counted.visits = 0;
    for (let i = 0; i < PAIRS; i++) {
      await d.add('r', 'tags', [`late${i}`]);
      await d.update('r', { $type: i % 2 === 0 ? 'Labelled' : 'Tagged' });
    }
    await waitFor(() => errors.some((e) => e.code === 'OPS_PER_SECOND'), [d, h.s]);
    expect(held()).toBeLessThan(own());

    // The bucket refills a second at a time; sync() pushes what the host lacks.
    let rounds = 0;
    while (held() < own() && rounds++ < 20 * PAIRS) {
      clock.t += 1000;
      await d.sync.sync().catch(() => undefined);
    }
    expect(held()).toBe(own());
    expect(await h.s.get('r')).toEqual(await d.get('r'));
    // Each flip was judged once when it landed, at the record's size (and one more element), never twice.
    expect(counted.visits).toBeLessThanOrEqual(PAIRS * (SIZE + PAIRS));
    expect(errors.every((e) => e.code === 'OPS_PER_SECOND' && e.status === 429)).toBe(true);
    expect(rounds).toBeGreaterThan(PAIRS);
    await closeAll(d, h.s);
  });
});
