import fc from 'fast-check';
import { checkOp, checkShape, type OpCheck, unpackEntry, unpackOp, unpackOps } from '../../src/op';
import { describeError, fuzzSync, inputsOf, type Outcome, RUNS } from './fuzz';
import { makeSamples, pieces, type Samples } from './samples';

let samples: Samples;
/** A push's ops, read as the host reads them (a hostile envelope stands for itself). */
const opsOf = (p: unknown): unknown => {
  try { return (p as { ops?: unknown })?.ops; } catch { return p; }
};
beforeAll(async () => {
  samples = await makeSamples();
});

const CODES = new Set(['OP_MALFORMED', 'SKEW']);

/** A check's outcome: a typed refusal, or an op that checks again as itself (nothing unchecked got through). */
function judgeCheck(o: Outcome): { fault: string | null; code?: string } {
  if (o.threw) return { fault: `threw ${describeError(o.error)}` };
  const c = o.value as OpCheck;
  if (c?.ok === false) {
    const typed = CODES.has(c.code) && typeof c.reason === 'string' && c.reason.length > 0;
    return typed ? { fault: null, code: c.code } : { fault: 'an untyped refusal' };
  }
  if (c?.ok !== true || typeof c.op !== 'object') return { fault: 'neither a refusal nor an op' };
  const again = checkShape(c.op);
  return again.ok ? { fault: null } : { fault: `a taken op that no longer checks (${again.reason})` };
}

describe('fuzz: op shape checks and unpacking refuse, never throw (GUAR-3, GUAR-5)', () => {
  it(`checkShape and checkOp: ${RUNS} generated and mutated ops, typed refusals only (GUAR-3, GUAR-4)`, () => {
    const now = 1_800_000_000_000;
    const t = fuzzSync(inputsOf(samples.ops), (x) => [checkShape(x), checkOp(x, { now })], (o) => {
      if (o.threw) return judgeCheck(o);
      const [shape, op] = o.value as OpCheck[];
      const a = judgeCheck({ threw: false, value: shape });
      return a.fault ? a : judgeCheck({ threw: false, value: op });
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
    expect(t.refused).toBeGreaterThan(RUNS / 4);
  });

  it(`unpackOp and unpackEntry: ${RUNS} generated and mutated packed ops (GUAR-3)`, () => {
    const t = fuzzSync(inputsOf(samples.packed), (x) => [unpackOp(x), unpackEntry(x)], (o) => {
      if (o.threw) return { fault: `threw ${describeError(o.error)}` };
      const [op, entry] = o.value as [OpCheck, { op: unknown; flags: number } | undefined];
      const j = judgeCheck({ threw: false, value: op });
      if (j.fault) return j;
      if (op.ok !== (entry !== undefined) && !(op.ok && entry === undefined)) return { fault: 'unpackEntry took what unpackOp refused' };
      if (entry !== undefined && !(Number.isSafeInteger(entry.flags) && entry.flags >= 0)) return { fault: 'an entry with bad flags' };
      return j;
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
  });

  it(`unpackOps: ${RUNS} generated and mutated push pages, every entry an op or counted malformed (GUAR-5)`, () => {
    const pages = [...pieces(samples.packed, 5), [samples.packed[0]], []];
    const arb = fc.oneof(inputsOf(pages), inputsOf(pieces(samples.packed, 4).map((ops) => ({ ops }))).map(opsOf));
    const t = fuzzSync(arb, (x) => unpackOps(x), (o, input) => {
      if (o.threw) return { fault: `threw ${describeError(o.error)}` };
      const u = o.value as { ops: unknown[]; malformed: number; reason?: unknown };
      if (!Array.isArray(u?.ops) || !Number.isSafeInteger(u.malformed)) return { fault: 'no { ops, malformed }' };
      const n = Array.isArray(input) ? input.length : 1;
      if (u.ops.length + u.malformed !== n) return { fault: `${u.ops.length} ops + ${u.malformed} malformed of ${n} entries` };
      if (u.malformed > 0 && typeof u.reason !== 'string') return { fault: 'malformed entries without a reason' };
      for (const op of u.ops) if (!checkShape(op).ok) return { fault: 'an unpacked op that does not check' };
      return u.malformed > 0 ? { fault: null, code: 'OP_MALFORMED' } : { fault: null };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 50);
    expect(t.refused).toBeGreaterThan(RUNS / 4);
  });
});
