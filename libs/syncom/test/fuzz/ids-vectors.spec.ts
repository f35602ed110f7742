import { internals } from '../../src/testing/internals';
import fc from 'fast-check';
import { formatEventId, parseEventId } from '../../src/log';
import type { OpLog } from '../../src/log';
import { isSyncomError } from '../../src';
import { checkShape, type Op, type OpCheck } from '../../src/op';
import { FORBIDDEN_KEYS } from '../../src/op/shape';
import { checkHello } from '../../src/sync/protocol/hello';
import { type PageRead, readSnapshotPage } from '../../src/sync/protocol/snapshot-page';
import { closeAll, node } from '../sync/helpers';
import { describeError, fuzzSync, inputsOf, RUNS } from './fuzz';
import { makeSamples, type Samples } from './samples';

let samples: Samples;
let log: OpLog;
let close: () => Promise<void>;
beforeAll(async () => {
  samples = await makeSamples();
  const s = await node();
  for (let i = 0; i < 5; i++) await s.insert({ i });
  log = internals(s).log;
  close = () => closeAll(s);
});
afterAll(() => close());

const REASONS = new Set(['foreign', 'floor', 'ahead', 'invalid']);

describe('fuzz: event ids and vectors refuse, never throw (LOG-6, LOG-7, GUAR-3)', () => {
  it(`parseEventId and a log's cursor: ${RUNS} generated and mutated event ids, an id that reformats as itself or undefined (LOG-6, LOG-7)`, () => {
    const ids = [...samples.eventIds, log.eventId(0), log.eventId(log.head), log.eventId(2)];
    const texts = fc.tuple(fc.constantFrom(...ids), fc.nat(), fc.string({ maxLength: 4 })).map(([id, at, s]) => id.slice(0, at % (id.length + 1)) + s + id.slice(at % (id.length + 1)));
    const arb = fc.oneof(inputsOf(ids), texts, fc.string({ maxLength: 80 }));
    const t = fuzzSync(arb, (x) => [parseEventId(x), log.cursor(x)], (o, input) => {
      if (o.threw) return { fault: `threw ${describeError(o.error)}` };
      const [id, at] = o.value as [ReturnType<typeof parseEventId>, ReturnType<OpLog['cursor']>];
      if (id !== undefined && formatEventId(id.epoch, id.seq) !== input) return { fault: 'an event id that does not format back to the input' };
      if (at.ok) return Number.isSafeInteger(at.pos) && at.pos >= log.floor && at.pos <= log.head ? { fault: null } : { fault: 'a cursor outside the log' };
      return REASONS.has(at.reason) ? { fault: null, code: at.reason } : { fault: 'an untyped cursor refusal' };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 50);
    expect(t.codes.size).toBe(4);
  });

  it(`vectors: ${RUNS} generated and mutated vectors, in an advance op, a hello and a snapshot page, taken only when version vectors (GUAR-3, BOOT-5, PROTO-4)`, () => {
    const advance = samples.ops.find((op) => op.type === 'advance') as Op;
    const t = fuzzSync(inputsOf(samples.vectors), (vector) => {
      const op = checkShape({ ...advance, vector });
      const page = readSnapshotPage({ token: 'tok', next: null, total: 0, count: 0, entries: [], vector }, 0);
      let hello: unknown;
      try { hello = checkHello({ ...samples.hello, vector }); } catch (e) { hello = isSyncomError(e, 'BAD_HELLO') ? undefined : e; }
      return { op, page, hello };
    }, (o, vector) => {
      if (o.threw) return { fault: `threw ${describeError(o.error)}` };
      const { op, page, hello } = o.value as { op: OpCheck; page: PageRead; hello: unknown };
      if (hello instanceof Error) return { fault: `hello threw ${describeError(hello)}` };
      if (!op.ok && op.code !== 'OP_MALFORMED') return { fault: 'an untyped op refusal' };
      if (!page.ok && page.code !== 'PAGE_FAILED') return { fault: 'an untyped page refusal' };
      if (vector === undefined) return { fault: null, code: 'absent' };
      // Where one takes a vector, it is one: safe counts under non-empty keys that reach no prototype.
      if (op.ok || page.ok) {
        const v = vector as Record<string, unknown>;
        const fine = Object.keys(v).every((k) => k.length > 0 && !FORBIDDEN_KEYS.includes(k) && Number.isSafeInteger(v[k]) && (v[k] as number) >= 0);
        if (!fine) return { fault: 'a vector taken that is none' };
      }
      if (op.ok !== page.ok) return { fault: 'an op and a page disagree on a vector' };
      return op.ok ? { fault: null } : { fault: null, code: 'refused' };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
    expect(t.refused).toBeGreaterThan(RUNS / 4);
  });
});
