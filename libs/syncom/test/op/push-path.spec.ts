import { canonicalJson, checkOp, Op, packOps, signOp, unpackOps, verifyOps } from '../../src/op';
import { canonicalPick } from '../../src/op/canonical';
import { checkShape } from '../../src/op/check';
import { payloadOf } from '../../src/op/payload';
import { digestOp, SORTED_PAYLOAD_FIELDS } from '../../src/op/sign';
import { isCanonicalSigText } from '../../src/op/verify';
import { PAYLOAD_FIELDS } from '../../src/op/types';
import { makeSigner, opsOfEachType } from './fixtures';

/** The shortcuts a host takes on every pushed op: each must answer as the long way did. */
describe('the push path, per op', () => {
  const signer = makeSigner();
  const signed = opsOfEachType(signer.origin).map((op) => signOp(op, signer.privateKey));

  it('SIG-6: the digest reads the payload fields in code-unit order, as canonicalJson of the payload does', () => {
    expect(SORTED_PAYLOAD_FIELDS).toEqual([...PAYLOAD_FIELDS].sort());
    const odd: Op = { ...signed[0], data: { b: 1, a: undefined, c: () => 1 } as never, meta: { z: [1, { y: 2, x: 3 }] } };
    for (const op of [...signed, odd, { origin: 'o', seq: 1, ts: 1, type: 'delete', id: 'x' } as Op]) {
      expect(canonicalPick(op, SORTED_PAYLOAD_FIELDS)).toBe(canonicalJson(payloadOf(op) ?? {}));
    }
    expect(digestOp(signed[0], 'n')).toBe(digestOp({ ...signed[0] }, 'n'));
  });

  it('canonicalJson sorts a few keys and many keys alike, by UTF-16 code units', () => {
    const few = { b: 1, a: 2, B: 3, é: 4, '😀': 5, '\uffff': 6, _: 7 };
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7919) % 40}`, i]));
    for (const value of [few, many, { x: few, y: [many] }]) {
      const sorted = (o: object): unknown => (Array.isArray(o) ? o.map((x) => (typeof x === 'object' ? sorted(x) : x)) : Object.fromEntries(
        Object.keys(o).sort().map((k) => [k, typeof (o as Record<string, unknown>)[k] === 'object' ? sorted((o as Record<string, object>)[k]) : (o as Record<string, unknown>)[k]])));
      expect(canonicalJson(value)).toBe(JSON.stringify(sorted(value)));
    }
  });

  it('SIG-21: a sig text is canonical exactly when decoding and encoding it again gives it back', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const op of signed) {
      const sig = op.sig as string;
      expect(isCanonicalSigText(sig)).toBe(true);
      for (const c of alphabet) {
        const text = sig.slice(0, 85) + c;
        expect(isCanonicalSigText(text)).toBe(Buffer.from(text, 'base64url').toString('base64url') === text);
      }
    }
    for (const text of ['', 'A'.repeat(85), 'A'.repeat(87), `${'A'.repeat(85)}=`, '+'.repeat(86), `${'A'.repeat(84)}/A`]) {
      expect(isCanonicalSigText(text)).toBe(false);
    }
  });

  it('SIG-21: a sig with stray bits in its last character is forged', async () => {
    const op = signed[0];
    const stray = { ...op, sig: `${(op.sig as string).slice(0, 85)}${op.sig?.endsWith('A') ? 'B' : 'A'}` };
    expect(await verifyOps([op, stray])).toEqual(['ok', 'forged']);
  });

  it('GUAR-3: an unpacked op is checked once more for free, and an object that only looks like one is checked in full', () => {
    const { ops } = unpackOps(JSON.parse(JSON.stringify(packOps(signed))));
    for (const op of ops) expect(checkShape(op)).toEqual({ ok: true, op });
    // A copy, or the caller's own object, is no op checkShape made: it is read again, field by field.
    const copy = { ...ops[0], seq: -1 };
    expect(checkShape(copy)).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
    expect(checkOp({ ...ops[0], ts: 'soon' })).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
    // The peer checks that follow the shape still run on an op checked before (key names, depth, skew).
    expect(checkOp(ops[0], { now: 0, maxSkew: 0 })).toMatchObject({ ok: false, code: 'SKEW' });
  });
});
