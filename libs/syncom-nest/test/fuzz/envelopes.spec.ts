import 'reflect-metadata';
import { WsException } from '@nestjs/websockets';
import * as transformer from 'class-transformer';
import { isSyncomError } from 'syncom';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expand } from '../../../syncom/test/fuzz/corpus';
import { describeError, fuzzAsync, fuzzSync, inputsOf, type Outcome, RUNS, SLOW_MS } from '../../../syncom/test/fuzz/fuzz';
import { makeSamples, pieces, type Samples } from '../../../syncom/test/fuzz/samples';
import { breachOf, ChangesDto, ChunkDto, HelloDto, MAX_ENVELOPE_DEPTH, PushDto, SnapshotDto, SyncomValidationPipe, UnsubscribeDto } from '../../src/gateway';
import type { Envelope } from '../../src/gateway/envelope-schema';
import { ReconcileDto, RecordsDto } from '../../src/gateway/reconcile.dto';
import { toWireError } from '../../src/gateway/syncom-refusal';
import { fromWireError, unwrapAnswer } from '../../src/link';
import { REFERENCE, referenceTakes } from './reference-dtos';

let samples: Samples;
beforeAll(async () => {
  samples = await makeSamples();
}, 30_000);

const pipeOf = (envelope: Envelope<unknown>) => new SyncomValidationPipe(envelope);

/** The pipe's outcome: an envelope it passes on, or its one refusal, a WsException { code: BAD_REQUEST, status: 400 }. */
function judgePipe(o: Outcome): { fault: string | null; code?: string } {
  // No body at all is read as {}: the pipe always hands on an object.
  if (!o.threw) return typeof o.value === 'object' && o.value !== null && !Array.isArray(o.value) ? { fault: null } : { fault: 'passed on something that is no envelope' };
  const e = o.error;
  const error = e instanceof WsException ? (e.getError() as { code?: unknown; status?: unknown }) : undefined;
  if (error?.code !== 'BAD_REQUEST' || error.status !== 400) return { fault: `threw ${describeError(e)}` };
  // What the filter answers on the ack: the same refusal.
  const wire = toWireError(e);
  return wire.code === 'BAD_REQUEST' && wire.status === 400 ? { fault: null, code: 'BAD_REQUEST' } : { fault: 'a refusal the filter would not answer as 400' };
}

/** One envelope per message of the gateway, from what a real dialer sends. */
function envelopes(): [string, Envelope<unknown>, unknown[]][] {
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

const NAMES = ['hello', 'push', 'snapshot', 'reconcile', 'records', 'changes', 'unsubscribe', 'chunk'];
const envelopeNamed = (name: string) => envelopes().find(([n]) => n === name) as [string, Envelope<unknown>, unknown[]];

describe('fuzz: gateway envelopes are refused 400 BAD_REQUEST by the validation pipe, never crash it (PROTO-4..7, HOST-1)', () => {
  for (const name of NAMES) {
    it(`${name}: ${RUNS} generated and mutated envelopes`, () => {
      const [, envelope, list] = envelopeNamed(name);
      const pipe = pipeOf(envelope);
      const t = fuzzSync(inputsOf(list, { wire: true }), (value) => pipe.transform(value), (o) => judgePipe(o));
      expect(t.taken).toBeGreaterThan(RUNS / 50);
      expect(t.refused).toBeGreaterThan(RUNS / 10);
    });
  }
});

/**
 * The readers against the class-validator DTOs the gateway used before
 * (reference-dtos.ts), on a fiftieth of the count: whatever a reader takes,
 * the old check took too, so no envelope got laxer. The readers may refuse
 * more (an empty node id or scope list, a schema or args that is an array,
 * strings measured in code units rather than characters: what the engine
 * refused one step later anyway), and they drop an extra field unread
 * however deep it nests, where the old check refused one deeper than
 * MAX_ENVELOPE_DEPTH.
 */
const REFERENCE_RUNS = Math.max(1, Math.floor(RUNS / 50));

describe('fuzz: what the pipe takes, the former class-validator DTOs took (PROTO-4..7, HOST-1)', () => {
  for (const name of NAMES) {
    it(`${name}: ${REFERENCE_RUNS} generated and mutated envelopes`, async () => {
      const [, envelope, list] = envelopeNamed(name);
      const pipe = pipeOf(envelope);
      let compared = 0;
      await fuzzAsync(inputsOf(list, { wire: true }), async (value) => {
        let taken = true;
        try { pipe.transform(structuredClone(value)); } catch { taken = false; }
        const deep = breachOf(value, { maxDepth: MAX_ENVELOPE_DEPTH, maxEntries: Infinity }) === 'depth';
        return { taken, old: taken && !deep ? await referenceTakes(REFERENCE[name], value) : true };
      }, (o) => {
        if (o.threw) return { fault: `threw ${describeError(o.error)}` };
        const { taken, old } = o.value as { taken: boolean; old: boolean };
        if (taken) compared++;
        return taken && !old ? { fault: 'taken now, refused by the former DTOs' } : { fault: null };
      }, REFERENCE_RUNS);
      expect(compared).toBeGreaterThan(REFERENCE_RUNS / 50);
    });
  }
});

/** `n` keys `${prefix}0`.. with the value `value(i)`: one object, built in place. */
function manyKeys(n: number, value: (i: number) => unknown, prefix = 'k'): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) o[`${prefix}${i}`] = value(i);
  return o;
}

/** CPU milliseconds of one pipe call, and its outcome. */
function timed(envelope: Envelope<unknown>, input: unknown): { ms: number; outcome: Outcome } {
  const pipe = pipeOf(envelope);
  const start = process.cpuUsage();
  let outcome: Outcome;
  try {
    outcome = { threw: false, value: pipe.transform(input) };
  } catch (error) {
    outcome = { threw: true, error };
  }
  const d = process.cpuUsage(start);
  return { ms: (d.user + d.system) / 1000, outcome };
}

/**
 * What the pipe does with an envelope, counted: the keys it lists (Object.keys
 * and Object.entries) and the calls it makes to class-transformer. Counted,
 * not timed, so the bound is deterministic.
 */
function counted(envelope: Envelope<unknown>, input: unknown): { listed: number; copies: number; outcome: Outcome } {
  let listed = 0;
  const [keys, entries] = [Object.keys, Object.entries];
  const spies = [
    jest.spyOn(Object, 'keys').mockImplementation((o: object) => { const r = keys(o); listed += r.length; return r; }),
    jest.spyOn(Object, 'entries').mockImplementation((o: object) => { const r = entries(o); listed += r.length; return r; }),
  ];
  const copiers = (['plainToInstance', 'plainToClass', 'instanceToPlain', 'classToPlain', 'instanceToInstance'] as const).map((name) => jest.spyOn(transformer, name));
  try {
    const { outcome } = timed(envelope, input);
    return { listed, copies: copiers.reduce((n, spy) => n + spy.mock.calls.length, 0), outcome };
  } finally {
    for (const spy of [...spies, ...copiers]) spy.mockRestore();
  }
}

/**
 * 60,000 keys in one object: class-transformer's copy of such an envelope
 * took seconds (superlinear). The pipe lists each key a bounded number of
 * times and never hands the envelope to class-transformer.
 */
const KEYS = 60_000;

describe('the pipe reads an envelope in linear time: many keys cost no class-transformer copy (HOST-1, GUAR-3)', () => {
  const origin = (i: number) => `${'A'.repeat(38)}${String(i).padStart(5, '0')}`;
  const cases: [string, string, () => unknown, 'taken' | 'refused'][] = [
    ['hello', 'a vector of 60,000 entries with one bad entry among them', () => {
      const vector: Record<string, number> = {};
      for (let i = 0; i < 60_000; i++) vector[origin(i)] = i === 30_000 ? -1 : i;
      return { ...samples.hello, vector };
    }, 'refused'],
    ['hello', 'an extra property of 60,000 keys', () => ({ ...samples.hello, extra: manyKeys(60_000, (i) => i) }), 'taken'],
    ['reconcile', 'a msg of 60,000 keys (the engine decodes it)', () => ({ scope: '*', msg: manyKeys(60_000, (i) => [i]) }), 'taken'],
    ['chunk', 'an extra property of 60,000 keys', () => ({ stream: 's', extra: manyKeys(60_000, () => ({ a: 1 })) }), 'taken'],
    ['push', 'an extra property of 60,000 keys beside the ops', () => ({ ops: [], extra: manyKeys(60_000, (i) => `v${i}`) }), 'taken'],
  ];
  for (const [name, why, make, expected] of cases) {
    it(`${name}: ${why}: ${expected} in one pass, uncopied, the extra keys dropped`, () => {
      const input = make();
      const { listed, copies, outcome } = counted(envelopeNamed(name)[1], input);
      const j = judgePipe(outcome);
      expect(j.fault).toBeNull();
      expect(j.code === undefined ? 'taken' : 'refused').toBe(expected);
      if (!outcome.threw) expect(Object.keys(outcome.value as object)).not.toContain('extra');
      expect(copies).toBe(0);
      expect(listed).toBeLessThanOrEqual(2 * KEYS);
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
    it(`${c.dto}: ${c.why} (${c.found}): ${c.expect}`, () => {
      const { ms, outcome } = timed(envelopeNamed(c.dto)[1], expand(c.input));
      const j = judgePipe(outcome);
      expect(j.fault).toBeNull();
      expect(j.code === undefined ? 'taken' : 'refused').toBe(c.expect);
      expect(ms).toBeLessThanOrEqual(SLOW_MS);
    });
  }
});
