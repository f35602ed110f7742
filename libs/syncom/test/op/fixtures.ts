import type { KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { generateSigningKeys, loadPrivateKey, nodeIdOf, Op, OpType, signOp } from '../../src/op';
import { isPrototypeOrigin } from '../../src/op/shape';

/** A fresh Ed25519 key and the node id it gives. */
export function makeSigner(): { privateKey: KeyObject; origin: string } {
  const privateKey = loadPrivateKey(generateSigningKeys().privatePem) as KeyObject;
  return { privateKey, origin: nodeIdOf(privateKey) };
}

/** One op of each type, unsigned, from `origin`. */
export function opsOfEachType(origin: string): Op[] {
  const head = (type: OpType, seq: number): Op => ({ origin, seq, ts: 1_700_000_000_000 + seq, type, id: 'rec-1' });
  return [
    { ...head('write', 1), data: { title: 'Draft', n: 1 }, meta: { v: 2 }, v: 2, actor: 'alice' },
    { ...head('set', 2), data: { title: 'Final' }, scope: 'team' },
    { ...head('inc', 3), key: 'views', value: 5 },
    { ...head('add', 4), key: 'tags', value: ['bug', 'ui'] },
    { ...head('remove', 5), key: 'tags', value: [['ui', ['tag-1']]] },
    head('delete', 6),
    head('purge', 7),
    { ...head('merge', 8), data: { fields: {} }, from: 'host-node' },
    { ...head('advance', 9), id: 'host-node', vector: { [origin]: 8, 'b@team': 3 }, from: 'host-node' },
  ];
}

/** A write carrying every header and payload field, signed. */
export function fullySignedOp(signer: ReturnType<typeof makeSigner>): Op {
  const op: Op = {
    origin: signer.origin, seq: 42, ts: 1_700_000_000_000, type: 'set', id: 'rec-9', scope: 'team',
    from: 'relay', v: 3, actor: 'alice', data: { a: 1, b: { c: [1, 2] } }, meta: { v: 3 },
    key: 'k', value: [1, 2], vector: { x: 1 },
  };
  return signOp(op, signer.privateKey);
}

const FORBIDDEN = ['__proto__', 'constructor', 'prototype'];
const fieldName = fc.string({ maxLength: 8 }).filter((k) => !FORBIDDEN.includes(k));
const text = (max: number): fc.Arbitrary<string> => fc.string({ minLength: 1, maxLength: max });
const base64url = (bytes: number): fc.Arbitrary<string> =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('base64url'));
const safeInt = (min: number): fc.Arbitrary<number> => fc.integer({ min, max: Number.MAX_SAFE_INTEGER });
/** An origin's shape, which `from` has too (a node's id). */
const nodeName = text(128).filter((o) => !/[@<]/.test(o) && !(o in Object.prototype));

/** A plain JSON record with no forbidden top-level names. */
export const recordArb = fc.dictionary(fieldName, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

const headerArb = fc.record(
  {
    origin: nodeName, seq: safeInt(1), ts: safeInt(0), id: text(40), scope: text(10).filter((s) => !s.includes('<')),
    from: nodeName, v: safeInt(0), actor: fc.string(), meta: recordArb,
    sig: base64url(64), digest: base64url(32), nonce: base64url(16),
  },
  { requiredKeys: ['origin', 'seq', 'ts', 'id'] },
);

const payloadArb: fc.Arbitrary<Partial<Op> & { type: OpType }> = fc.oneof(
  fc.record({ type: fc.constantFrom('write', 'set', 'merge'), data: recordArb }),
  fc.record({ type: fc.constant('inc'), key: fc.string(), value: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.record({ type: fc.constant('add'), key: fc.string(), value: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }) }),
  fc.record({
    type: fc.constant('remove'), key: fc.string(),
    value: fc.array(fc.tuple(fc.jsonValue({ maxDepth: 1 }), fc.array(fc.string(), { maxLength: 2 })), { maxLength: 3 }),
  }),
  fc.record({ type: fc.constantFrom('delete', 'purge') }),
  // A vector key whose origin is named like an Object.prototype member is refused as op origins are (isPrototypeOrigin).
  fc.record({ type: fc.constant('advance'), vector: fc.dictionary(text(20).filter((k) => !FORBIDDEN.includes(k) && !isPrototypeOrigin(k)), safeInt(0), { maxKeys: 3 }) }),
);

/** Ops that pass checkShape: every type, optional fields present or absent. */
export const opArb: fc.Arbitrary<Op> = fc.tuple(headerArb, payloadArb).map(([header, payload]) => {
  const op = { ...header, ...payload } as Op;
  if (op.type === 'delete' || op.type === 'purge') {
    delete op.nonce;
    delete op.meta;
  }
  if (op.type === 'advance') delete op.meta;
  return op;
});
