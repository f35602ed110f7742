import { isSyncomError, type Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { createReconciler } from '../../src/sync/reconcile';
import { labelItems } from '../../src/sync/reconcile-sets';
import { closeAll, hub } from '../sync/helpers';
import { describeError, fuzzAsync, inputsOf, type Outcome, RUNS } from './fuzz';
import { makeSamples, pieces, type Samples } from './samples';

let samples: Samples;
let host: { s: Storage; unit: HostUnit };
const ctx = {};
beforeAll(async () => {
  samples = await makeSamples();
  host = await hub({ limits: { bytesPerPush: 4 * 1024 * 1024, opsPerPush: 500 } });
  await host.unit.call('hello', samples.hello, ctx);
  await host.unit.call('push', { ops: samples.packed.slice(0, 12) }, ctx);
});
afterAll(() => closeAll(host.s));

/**
 * A procedure's outcome: an answer, or a SyncomError with a code and the
 * status the link carries back (4xx; 503 for a page the host could not
 * take). Anything else — a TypeError, a RangeError — is a crash in the host.
 */
function judgeCall(o: Outcome): { fault: string | null; code?: string } {
  if (!o.threw) return { fault: null };
  const e = o.error;
  const status = (e as { status?: unknown })?.status;
  const typed = isSyncomError(e) && typeof e.code === 'string' && typeof status === 'number' && ((status >= 400 && status < 500) || status === 503);
  return typed ? { fault: null, code: e.code } : { fault: `threw ${describeError(e)}` };
}

const call = (method: string) => (args: unknown) => host.unit.call(method, args, ctx);

/**
 * The procedures wrap decoders fuzzed at the full count elsewhere (unpackOps
 * and checkShape in op.spec, decodeMessage in reconcile/fuzz.spec) and then
 * do real work per input — verify signatures, apply, page, build a
 * responder — so they run a tenth (push, a twentieth) of the inputs: 10k
 * and 5k in CI, a million and 500k in the hunt. records decodes inline and
 * is cheap: the full count.
 */
const PROCEDURE_RUNS = Math.max(1, Math.floor(RUNS / 10));
const PUSH_RUNS = Math.max(1, Math.floor(RUNS / 20));

describe('fuzz: the host unit refuses malformed requests with a typed SyncomError, never crashes (HOST-1, PROTO-5, PROTO-7, GUAR-15)', () => {
  it(`push: ${PUSH_RUNS} generated and mutated push pages of real ops (PROTO-5, HOST-10, HOST-11, GUAR-5)`, async () => {
    const pushes = pieces(samples.packed, 2).map((ops) => ({ ops }));
    const t = await fuzzAsync(inputsOf(pushes, { wire: true }), call('push'), (o) => {
      const j = judgeCall(o);
      if (o.threw) return j;
      const a = o.value as Record<string, unknown>;
      return ['applied', 'malformed', 'duplicates'].every((k) => Number.isSafeInteger(a[k])) ? j : { fault: 'an answer without counts' };
    }, PUSH_RUNS);
    expect(t.taken).toBeGreaterThan(PUSH_RUNS / 10);
    expect(t.codes).toContain('BAD_REQUEST');
  });

  it(`snapshot: ${PROCEDURE_RUNS} generated and mutated snapshot requests (PROTO-7, SCOPE-22)`, async () => {
    const first = samples.pages[0] as { token: string };
    const asks = [{ offset: 0 }, { token: first.token, offset: 3, stream: true, scopes: ['*'] }, { scopes: ['team', '*'], stream: false }, {}];
    const t = await fuzzAsync(inputsOf(asks, { wire: true }), call('snapshot'), judgeCall, PROCEDURE_RUNS);
    expect(t.taken).toBeGreaterThan(PROCEDURE_RUNS / 10);
  });

  it(`records: ${RUNS} generated and mutated records requests (issue 6.2)`, async () => {
    const t = await fuzzAsync(inputsOf(samples.recordsAsked, { wire: true }), call('records'), (o) => {
      const j = judgeCall(o);
      if (o.threw) return j;
      const a = o.value as { entries?: unknown; taken?: unknown };
      return Array.isArray(a.entries) && Number.isSafeInteger(a.taken) ? j : { fault: 'an answer without entries and taken' };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 10);
    expect(t.codes).toContain('BAD_REQUEST');
  });

  it(`reconcile: ${PROCEDURE_RUNS} generated and mutated reconcile envelopes (issue 6.2)`, async () => {
    const msg = createReconciler({ items: labelItems(host.s, '*', ['*']) }).initiate();
    const asks = [{ scope: '*', msg, start: true }, { scope: '*', msg }];
    const t = await fuzzAsync(inputsOf(asks, { wire: true }), call('reconcile'), judgeCall, PROCEDURE_RUNS);
    expect(t.taken).toBeGreaterThan(PROCEDURE_RUNS / 20);
    expect(t.codes).toContain('RECONCILE_MALFORMED');
  });
});
