import 'reflect-metadata';
import type { ArgumentMetadata, Type } from '@nestjs/common';
import { WsException } from '@nestjs/websockets';
import { isSyncomError } from 'syncom';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expand } from '../../../syncom/test/fuzz/corpus';
import { describeError, fuzzAsync, fuzzSync, inputsOf, type Outcome, RUNS, SLOW_MS } from '../../../syncom/test/fuzz/fuzz';
import { makeSamples, pieces, type Samples } from '../../../syncom/test/fuzz/samples';
import { ChangesDto, ChunkDto, HelloDto, PushDto, SnapshotDto, SyncomValidationPipe, UnsubscribeDto } from '../../src/gateway';
import { ReconcileDto, RecordsDto } from '../../src/gateway/reconcile.dto';
import { toWireError } from '../../src/gateway/syncom-refusal';
import { fromWireError, unwrapAnswer } from '../../src/link';

let samples: Samples;
beforeAll(async () => {
  samples = await makeSamples();
}, 30_000);

/**
 * The gateway's pipe, watched: its pre-check (envelope-precheck.ts) runs
 * inside the pipe's catch-all, where a throw would pass for a 400; the
 * watch reports one instead, and changes nothing else.
 */
class WatchedPipe extends SyncomValidationPipe {
  threw: unknown[] = [];
  protected override earlyRefusal(view: unknown, metadata: ArgumentMetadata): string | null {
    try {
      return super.earlyRefusal(view, metadata);
    } catch (e) {
      this.threw.push(e);
      throw e;
    }
  }
}

/** The pipe with its pre-check heard but not heeded: the full check (class-transformer and class-validator) decides. */
class ReferencePipe extends SyncomValidationPipe {
  early: string | null = null;
  protected override earlyRefusal(view: unknown, metadata: ArgumentMetadata): string | null {
    this.early = super.earlyRefusal(view, metadata);
    return null;
  }
}

const pipe = new WatchedPipe();
const reference = new ReferencePipe();
const as = (metatype: Type<unknown>) => ({ type: 'body', metatype, data: undefined }) as ArgumentMetadata;
const transform = (metatype: Type<unknown>) => (value: unknown) => pipe.transform(value, as(metatype)) as Promise<unknown>;

/** The pipe's outcome: an envelope it passes on, or its one refusal, a WsException { code: BAD_REQUEST, status: 400 }. */
function judgePipe(o: Outcome, input: unknown): { fault: string | null; code?: string } {
  // No body at all passes as it came for an envelope whose fields are all optional: the unit reads it as {}.
  if (!o.threw) return (typeof o.value === 'object' && o.value !== null) || (o.value === input && input == null) ? { fault: null } : { fault: 'passed on something that is no envelope' };
  const e = o.error;
  const error = e instanceof WsException ? (e.getError() as { code?: unknown; status?: unknown }) : undefined;
  if (error?.code !== 'BAD_REQUEST' || error.status !== 400) return { fault: `threw ${describeError(e)}` };
  // What the filter answers on the ack: the same refusal.
  const wire = toWireError(e);
  return wire.code === 'BAD_REQUEST' && wire.status === 400 ? { fault: null, code: 'BAD_REQUEST' } : { fault: 'a refusal the filter would not answer as 400' };
}

/** One envelope per DTO of the gateway, from what a real dialer sends. */
function envelopes(): [string, Type<unknown>, unknown[]][] {
  const first = samples.pages[0] as { token: string };
  return [
    ['hello', HelloDto, [samples.hello, { ...samples.hello, schema: { version: 2, hash: 'abc' }, versions: undefined, caps: undefined }]],
    ['push', PushDto, pieces(samples.packed, 3).map((ops) => ({ ops }))],
    ['snapshot', SnapshotDto, [{ offset: 0, scopes: ['*'], stream: true }, { token: first.token, offset: 3 }, {}]],
    ['reconcile', ReconcileDto, [{ scope: '*', msg: { v: 1, ranges: [[null, 1, 'AAAAAAAAAAAAAAAAAAAAAA']] }, start: true }]],
    ['records', RecordsDto, samples.recordsAsked],
    ['changes', ChangesDto, [{ sub: '1.1', args: { scopes: ['*'] }, lastEventId: samples.eventIds[1] }, { sub: '2.1', args: null }]],
    ['unsubscribe', UnsubscribeDto, [{ sub: '1.1' }]],
    ['chunk', ChunkDto, [{ stream: 'abcdefgh' }, { stream: 'abcdefgh', cancel: true }]],
  ];
}

/**
 * The full check (class-transformer's copy, class-validator's walk, an
 * exception with its stack) costs tens of microseconds an envelope, a
 * refusal the most; the pipe's pre-check refuses most malformed envelopes
 * in a few, from the same constraints. So every envelope type gets the
 * full count through the pipe as the gateway runs it (100k in CI, 10M in
 * the hunt), and a fiftieth of that (2k, 200k) checks the pre-check
 * against the full check: whatever it refuses, the full check refuses too.
 */
const PRECHECK_RUNS = Math.max(1, Math.floor(RUNS / 50));
const NAMES = ['hello', 'push', 'snapshot', 'reconcile', 'records', 'changes', 'unsubscribe', 'chunk'];

describe('fuzz: gateway envelopes are refused 400 BAD_REQUEST by the validation pipe, never crash it (PROTO-4..7, HOST-1)', () => {
  for (const name of NAMES) {
    it(`${name}: ${RUNS} generated and mutated envelopes`, async () => {
      const [, dto, list] = envelopes().find(([n]) => n === name) as [string, Type<unknown>, unknown[]];
      const t = await fuzzAsync(inputsOf(list, { wire: true }), transform(dto), (o, input) => {
        const thrown = pipe.threw.splice(0);
        return thrown.length > 0 ? { fault: `the pre-check threw ${describeError(thrown[0])}` } : judgePipe(o, input);
      });
      expect(t.taken).toBeGreaterThan(RUNS / 50);
      expect(t.refused).toBeGreaterThan(RUNS / 10);
    });
  }
});

describe('fuzz: the pipe\'s pre-check refuses only what the full check refuses (PROTO-4..7, HOST-1)', () => {
  for (const name of NAMES) {
    it(`${name}: ${PRECHECK_RUNS} generated and mutated envelopes, the pre-check's refusals all refused by class-validator`, async () => {
      const [, dto, list] = envelopes().find(([n]) => n === name) as [string, Type<unknown>, unknown[]];
      let early = 0;
      const t = await fuzzAsync(inputsOf(list, { wire: true }), (value) => {
        reference.early = null;
        return reference.transform(value, as(dto));
      }, (o, input) => {
        const j = judgePipe(o, input);
        if (reference.early === null || j.fault) return j;
        early++;
        return j.code === undefined ? { fault: `the pre-check refused (${reference.early}) what class-validator takes` } : j;
      }, PRECHECK_RUNS);
      // The pre-check must be worth its place: most refusals are its.
      expect(early).toBeGreaterThan(t.refused / 2);
    });
  }
});

describe('fuzz: the socket.io link decodes what a host answers into a value or a typed SyncomError (LINK-2)', () => {
  it(`unwrapAnswer and fromWireError: ${RUNS} generated and mutated answers`, () => {
    const answers = [
      { ok: true, value: samples.answer },
      { ok: false, error: { code: 'INCOMPATIBLE', status: 426, message: 'no shared version', versions: [1, 2] } },
      { ok: false, error: { code: 'BAD_REQUEST', status: 400, message: 'ops must be an array' } },
    ];
    const t = fuzzSync(inputsOf(answers, { wire: true }), (x) => {
      const wire = fromWireError((x as { error?: unknown } | null)?.error);
      try {
        return { value: unwrapAnswer(x), wire };
      } catch (e) {
        return { refusal: e, wire };
      }
    }, (o) => {
      if (o.threw) return { fault: `threw ${describeError(o.error)}` };
      const { refusal, wire } = o.value as { refusal?: unknown; wire: unknown };
      if (!isSyncomError(wire)) return { fault: 'fromWireError made no SyncomError' };
      if (refusal === undefined) return { fault: null };
      return isSyncomError(refusal) && typeof refusal.code === 'string' ? { fault: null, code: refusal.code } : { fault: `unwrapAnswer threw ${describeError(refusal)}` };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
    expect(t.codes).toContain('BAD_ANSWER');
  });
});

interface EnvelopeCase { why: string; found: string; dto: string; expect: 'taken' | 'refused'; input: unknown }

describe('fuzz corpus: envelopes that crashed or slowed the pipe, and hand-picked nasties, replayed', () => {
  const cases = JSON.parse(readFileSync(join(__dirname, 'corpus', 'envelopes.json'), 'utf8')) as EnvelopeCase[];
  for (const c of cases) {
    it(`${c.dto}: ${c.why} (${c.found}): ${c.expect}`, async () => {
      const dto = envelopes().find(([n]) => n === c.dto)?.[1] as Type<unknown>;
      const input = expand(c.input);
      const start = process.cpuUsage();
      let outcome: Outcome;
      try {
        outcome = { threw: false, value: await transform(dto)(input) };
      } catch (error) {
        outcome = { threw: true, error };
      }
      const d = process.cpuUsage(start);
      const j = judgePipe(outcome, input);
      expect(j.fault).toBeNull();
      expect(j.code === undefined ? 'taken' : 'refused').toBe(c.expect);
      expect((d.user + d.system) / 1000).toBeLessThanOrEqual(SLOW_MS);
    });
  }
});
