import { isSyncomError, type Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { createReconciler } from '../../src/reconcile';
import { labelItems } from '../../src/reconcile/record-sets';
import { closeAll, hub } from '../sync/helpers';
import { describeError, fuzzAsync, inputsOf, type Outcome, RUNS as DECODER_RUNS } from './fuzz';
import { makeSamples, pieces, type Samples } from './samples';

/**
 * Requests per procedure: 20k in CI, FUZZ_RUNS when set (the hunt's 10M).
 * Each request does a procedure's real work on top of decoders fuzzed at
 * the full count elsewhere, so the CI count here is the smaller one.
 */
const RUNS = process.env.FUZZ_RUNS === undefined ? 20_000 : DECODER_RUNS;

let samples: Samples;
let host: { s: Storage; unit: HostUnit };
/** The same host with signatures off (SIG-13..15 'false'): a push costs its checks and its apply, no RSA verification. */
let unsigned: { s: Storage; unit: HostUnit };
const ctx = {};
const unsignedCtx = {};
const LIMITS = { bytesPerPush: 4 * 1024 * 1024, opsPerPush: 500 };
beforeAll(async () => {
  samples = await makeSamples();
  host = await hub({ limits: LIMITS });
  await host.unit.call('hello', samples.hello, ctx);
  await host.unit.call('push', { ops: samples.packed.slice(0, 12) }, ctx);
  // No byte bound here: measuring one walks the page's JSON, and a value nested 20,000 deep (one input in
  // twenty) costs milliseconds to find unmeasurable; the signed share fuzzes the bound.
  unsigned = await hub({ limits: { opsPerPush: LIMITS.opsPerPush } }, { durable: false, sync: { signatures: false } });
  await unsigned.unit.call('hello', samples.hello, unsignedCtx);
  await unsigned.unit.call('push', { ops: samples.packed.slice(0, 12) }, unsignedCtx);
});
afterAll(() => closeAll(host.s, unsigned.s));

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

/** A push answer: its counts, or a typed refusal. */
function judgePush(o: Outcome): { fault: string | null; code?: string } {
  const j = judgeCall(o);
  if (o.threw) return j;
  const a = o.value as Record<string, unknown>;
  return ['applied', 'malformed', 'duplicates'].every((k) => Number.isSafeInteger(a[k])) ? j : { fault: 'an answer without counts' };
}

/**
 * The procedures wrap decoders fuzzed at the full count elsewhere (unpackOps
 * and checkShape in op.spec, decodeMessage in reconcile/fuzz.spec) and then
 * do real work per input — apply, page, build a responder — and every one
 * gets RUNS. A push's RSA verification is the dearest part
 * (hundreds of microseconds a signed op), so the full count of pushes goes
 * to a host with signatures off, which checks, scopes and applies the same
 * pages (and bounds their ops, not their bytes), and a twentieth of it (1k
 * in CI, 500k in the hunt) to the host that verifies every signature and
 * bounds the bytes too.
 */
const SIGNED_RUNS = Math.max(1, Math.floor(RUNS / 20));

describe('fuzz: the host unit refuses malformed requests with a typed SyncomError, never crashes (HOST-1, PROTO-5, PROTO-7, GUAR-15)', () => {
  it(`push, signatures off: ${RUNS} generated and mutated push pages of real ops (PROTO-5, HOST-10, HOST-11, GUAR-5)`, async () => {
    const pushes = pieces(samples.packed, 2).map((ops) => ({ ops }));
    const t = await fuzzAsync(inputsOf(pushes, { wire: true }), (args) => unsigned.unit.call('push', args, unsignedCtx), judgePush);
    expect(t.taken).toBeGreaterThan(RUNS / 10);
    expect(t.codes).toContain('BAD_REQUEST');
  });

  it(`push, signatures verified: ${SIGNED_RUNS} generated and mutated push pages of real signed ops (PROTO-5, HOST-10, HOST-11, GUAR-5, GUAR-15)`, async () => {
    const pushes = pieces(samples.packed, 2).map((ops) => ({ ops }));
    const t = await fuzzAsync(inputsOf(pushes, { wire: true }), call('push'), judgePush, SIGNED_RUNS);
    expect(t.taken).toBeGreaterThan(SIGNED_RUNS / 10);
    expect(t.codes).toContain('BAD_REQUEST');
  });

  it(`snapshot: ${RUNS} generated and mutated snapshot requests (PROTO-7, SCOPE-22)`, async () => {
    const first = samples.pages[0] as { token: string };
    const asks = [{ offset: 0 }, { token: first.token, offset: 3, stream: true, scopes: ['*'] }, { scopes: ['team', '*'], stream: false }, {}];
    const t = await fuzzAsync(inputsOf(asks, { wire: true }), call('snapshot'), judgeCall);
    expect(t.taken).toBeGreaterThan(RUNS / 10);
  });

  it(`records: ${RUNS} generated and mutated records requests`, async () => {
    const t = await fuzzAsync(inputsOf(samples.recordsAsked, { wire: true }), call('records'), (o) => {
      const j = judgeCall(o);
      if (o.threw) return j;
      const a = o.value as { entries?: unknown; taken?: unknown };
      return Array.isArray(a.entries) && Number.isSafeInteger(a.taken) ? j : { fault: 'an answer without entries and taken' };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 10);
    expect(t.codes).toContain('BAD_REQUEST');
  });

  it(`reconcile: ${RUNS} generated and mutated reconcile envelopes`, async () => {
    const msg = createReconciler({ items: labelItems(host.s.replica, '*', ['*']) }).initiate();
    const asks = [{ scope: '*', msg, start: true }, { scope: '*', msg }];
    const t = await fuzzAsync(inputsOf(asks, { wire: true }), call('reconcile'), judgeCall);
    expect(t.taken).toBeGreaterThan(RUNS / 20);
    expect(t.codes).toContain('RECONCILE_MALFORMED');
  });
});
