import { isSyncomError } from '../../src';
import { checkHello, type Hello } from '../../src/sync/protocol/hello';
import { checkHelloAnswer } from '../../src/sync/protocol/hello';
import { readCaps, readVersions } from '../../src/sync/protocol/versions';
import { describeError, fuzzSync, inputsOf, type Outcome, RUNS } from './fuzz';
import { makeSamples, type Samples } from './samples';

let samples: Samples;
beforeAll(async () => {
  samples = await makeSamples();
});

/** A hello check's outcome: taken, or thrown as the one refusal it may throw, 400 BAD_HELLO. */
function judgeHello(o: Outcome): { fault: string | null; code?: string } {
  if (!o.threw) return typeof o.value === 'object' && o.value !== null ? { fault: null } : { fault: 'neither a hello nor a refusal' };
  const e = o.error;
  return isSyncomError(e) && e.code === 'BAD_HELLO' && e.status === 400 ? { fault: null, code: 'BAD_HELLO' } : { fault: `threw ${describeError(e)}` };
}

describe('fuzz: hello and its answer refuse with 400 BAD_HELLO, nothing else (PROTO-4, SCHEMA-1)', () => {
  it(`checkHello: ${RUNS} generated and mutated hellos, marks included (PROTO-4)`, () => {
    const seeds = [samples.hello, { ...samples.hello, versions: undefined, caps: undefined, schema: { version: 3, hash: 'h' } }, { ...samples.hello, vectorSince: 'AbCdEfGhIjKl.42' }];
    const t = fuzzSync(inputsOf(seeds), (x) => checkHello(x), (o) => {
      const j = judgeHello(o);
      if (j.fault || o.threw) return j;
      const h = o.value as Hello;
      // What the host goes on to use: versions and caps are lists it can negotiate on.
      if (!Array.isArray(h.versions) || !h.versions.every((v) => Number.isSafeInteger(v) && v > 0)) return { fault: 'a hello without versions' };
      if (!h.scopes.every((s) => typeof s === 'string')) return { fault: 'a scope that is no name' };
      // A mark the host parses: absent, or a short string.
      if (h.vectorSince !== undefined && !(typeof h.vectorSince === 'string' && h.vectorSince.length > 0 && h.vectorSince.length <= 128)) return { fault: 'a vectorSince that is no mark' };
      return Array.isArray(h.caps) && Array.isArray(h.scopes) ? j : { fault: 'a hello without caps or scopes' };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
    expect(t.refused).toBeGreaterThan(RUNS / 4);
  });

  it(`checkHelloAnswer: ${RUNS} generated and mutated answers of a real host (PROTO-4)`, () => {
    const t = fuzzSync(inputsOf([samples.answer, { ...(samples.answer as object), vectorSince: 'AbCdEfGhIjKl.1' }]), (x) => checkHelloAnswer(x), (o) => {
      const j = judgeHello(o);
      if (j.fault || o.threw) return j;
      const a = o.value as { version: unknown; floor: unknown; vectorMark?: unknown; vectorSince?: unknown };
      const mark = (m: unknown) => m === undefined || (typeof m === 'string' && m.length > 0 && m.length <= 128);
      if (!mark(a.vectorMark) || !mark(a.vectorSince)) return { fault: 'a vectorMark or vectorSince that is no mark' };
      return Number.isSafeInteger(a.version) && Number.isSafeInteger(a.floor) ? j : { fault: 'an answer without version or floor' };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
  });

  it(`readVersions and readCaps: ${RUNS} generated and mutated lists, a list or null`, () => {
    const lists = [[1], [1, 2, 3], ['reconcile/1'], ['reconcile/1', 'x'], [], null];
    const t = fuzzSync(inputsOf(lists), (x) => [readVersions(x), readCaps(x)], (o) => {
      if (o.threw) return { fault: `threw ${describeError(o.error)}` };
      const [v, c] = o.value as [number[] | null, string[] | null];
      if (v !== null && !(v.length > 0 && v.length <= 64 && v.every((n) => Number.isSafeInteger(n) && n > 0))) return { fault: 'versions that are no versions' };
      if (c !== null && !(c.length <= 64 && c.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 64))) return { fault: 'caps that are no caps' };
      return v === null || c === null ? { fault: null, code: 'null' } : { fault: null };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
  });
});
