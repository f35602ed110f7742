import fc from 'fast-check';
import { checkOp, DEFAULT_MAX_SKEW, MAX_TS, Op, scrubOp, signOp } from '../../src/op';
import { makeSigner, opArb, opsOfEachType } from './fixtures';

const signer = makeSigner();
const NOW = 1_700_000_000_000;
const [write, set, inc, add, remove, del, purge, merge, advance] = opsOfEachType(signer.origin);
const signed = signOp(write, signer.privateKey);

/** checkOp of `op` with `changes` applied, at a fixed clock. */
function checkWith(op: Op, changes: Record<string, unknown>): ReturnType<typeof checkOp> {
  return checkOp({ ...op, ...changes }, { now: NOW });
}

function expectMalformed(op: Op, changes: Record<string, unknown>, field: string): void {
  const result = checkWith(op, changes);
  expect(result).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
  expect(!result.ok && result.reason).toContain(field);
}

describe('checkOp', () => {
  it('OPS-2: takes every type with its fields, as a fresh object without unknown keys', () => {
    for (const op of [...opsOfEachType(signer.origin), signed]) {
      const result = checkOp({ ...op, extra: 1 }, { now: NOW });
      expect(result).toEqual({ ok: true, op });
    }
  });

  const cases: [string, Op, Record<string, unknown>[]][] = [
    ['origin', write, [{ origin: '' }, { origin: 'x'.repeat(129) }, { origin: 7 }, { origin: undefined }]],
    ['seq', write, [{ seq: 0 }, { seq: -1 }, { seq: 1.5 }, { seq: 2 ** 53 }, { seq: '1' }, { seq: undefined }]],
    ['ts', write, [{ ts: -1 }, { ts: 0.5 }, { ts: NaN }, { ts: '0' }, { ts: undefined }]],
    ['type', write, [{ type: 'explode' }, { type: 'WRITE' }, { type: undefined }]],
    ['id', write, [{ id: '' }, { id: 'x'.repeat(513) }, { id: 3 }, { id: undefined }]],
    ['scope', write, [{ scope: '' }, { scope: 'x'.repeat(129) }, { scope: null }, { scope: ['a'] }]],
    ['v', write, [{ v: -1 }, { v: 1.5 }, { v: '2' }, { v: null }]],
    ['actor', write, [{ actor: 5 }, { actor: { user: 'x' } }, { actor: null }]],
    ['from', merge, [{ from: 5 }, { from: ['h'] }, { from: '' }, { from: 'x'.repeat(129) }, { from: 'h@a' }, { from: 'h<g' }]],
    ['sig', signed, [{ sig: 'x' }, { sig: signed.sig + 'A' }, { sig: signed.sig!.slice(1) + '=' }, { sig: 1 }]],
    ['digest', signed, [{ digest: 'abc' }, { digest: signed.digest!.slice(1) + '+' }, { digest: 2 }]],
    ['nonce', signed, [{ nonce: 'short' }, { nonce: signed.nonce!.slice(1) + '/' }, { nonce: 3 }]],
    ['data', write, [{ data: null }, { data: [] }, { data: 'x' }, { data: new Date() }, { data: undefined }]],
    ['meta', write, [{ meta: null }, { meta: [1] }, { meta: 5 }]],
    ['key', inc, [{ key: 5 }, { key: null }, { key: undefined }]],
    ['value', inc, [{ value: '5' }, { value: Infinity }, { value: NaN }, { value: undefined }]],
    ['value', add, [{ value: 'bug' }, { value: { a: 1 } }, { value: undefined }]],
    ['value', remove, [{ value: ['ui'] }, { value: [['ui']] }, { value: [['ui', [1]]] }, { value: [['ui', 'tag']] }]],
    ['vector', advance, [{ vector: undefined }, { vector: [] }, { vector: { a: -1 } }, { vector: { a: 1.5 } }, { vector: { '': 1 } }]],
    ['payload', del, [{ data: {} }, { key: 'k' }, { value: 1 }, { nonce: signed.nonce }]],
    ['payload', purge, [{ vector: {} }, { meta: {} }]],
    ['data', set, [{ data: undefined }]],
    ['data', merge, [{ data: undefined }]],
  ];

  it.each(cases)('GUAR-3: %s must have its shape (%#)', (field, op, changes) => {
    for (const change of changes) expectMalformed(op, change, field);
  });

  it('GUAR-3: refuses __proto__, constructor and prototype as field names in data, meta and vector', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const record = JSON.parse(`{"${name}": {"polluted": true}, "ok": 1}`) as Record<string, unknown>;
      expectMalformed(write, { data: record }, 'data');
      expectMalformed(write, { meta: record }, 'meta');
      expectMalformed(advance, { vector: JSON.parse(`{"${name}": 1}`) }, 'vector');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('GUAR-3: actor is carried as it is, and from when it names a node (test/hostile/from-shape.spec.ts)', () => {
    expect(checkWith(write, { actor: '', from: 'elsewhere' })).toMatchObject({ ok: true, op: { actor: '', from: 'elsewhere' } });
  });

  it('SIG-11: a scrubbed op is well-formed for any type', () => {
    for (const op of opsOfEachType(signer.origin)) {
      const scrubbed = scrubOp(signOp(op, signer.privateKey));
      expect(checkOp(scrubbed, { now: NOW })).toEqual({ ok: true, op: scrubbed });
    }
  });

  it('GUAR-4: a ts more than maxSkew ahead of now, or past the latest date, is refused with code SKEW', () => {
    const at = (ts: number, options = {}): ReturnType<typeof checkOp> => checkOp({ ...write, ts }, { now: NOW, ...options });
    expect(DEFAULT_MAX_SKEW).toBe(86_400_000);
    expect(at(NOW + DEFAULT_MAX_SKEW).ok).toBe(true);
    expect(at(NOW + DEFAULT_MAX_SKEW + 1)).toMatchObject({ ok: false, code: 'SKEW' });
    expect(at(0).ok).toBe(true);
    expect(at(NOW + 1001, { maxSkew: 1000 })).toMatchObject({ ok: false, code: 'SKEW' });
    // Infinity lifts the window up to the latest date a JS Date holds; past it a stamp is refused whatever maxSkew says.
    expect(at(MAX_TS, { maxSkew: Infinity }).ok).toBe(true);
    expect(at(MAX_TS + 1, { maxSkew: Infinity })).toMatchObject({ ok: false, code: 'SKEW' });
    expect(at(Number.MAX_SAFE_INTEGER, { maxSkew: Infinity })).toMatchObject({ ok: false, code: 'SKEW' });
    expect(checkOp({ ...write, ts: Date.now() + 2 * DEFAULT_MAX_SKEW })).toMatchObject({ code: 'SKEW' });
  });

  it('GUAR-3 property: never throws on anything', () => {
    const anything = fc.anything({ withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withBigInt: true });
    fc.assert(
      fc.property(anything, (value) => {
        expect(typeof checkOp(value).ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });

  it('GUAR-3 property: never throws on a valid op with one field replaced', () => {
    const fields = ['origin', 'seq', 'ts', 'type', 'id', 'scope', 'from', 'v', 'actor', 'data', 'meta', 'key', 'value', 'vector', 'sig', 'digest', 'nonce'];
    fc.assert(
      fc.property(opArb, fc.constantFrom(...fields), fc.anything({ withBoxedValues: true, withBigInt: true }), (op, field, value) => {
        const result = checkOp({ ...op, [field]: value }, { maxSkew: Infinity });
        if (result.ok) expect(checkOp(result.op, { maxSkew: Infinity })).toEqual(result);
      }),
      { numRuns: 1000 },
    );
  });
});
