import fc from 'fast-check';
import {
  checkShape, FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED, Op, packOp, packOps, signOp, unpackEntry, unpackOp, unpackOps,
} from '../../src/op';
import { fullySignedOp, makeSigner, opArb, opsOfEachType } from './fixtures';

const signer = makeSigner();

describe('packOps / unpackOps', () => {
  it('SIG-12: sig, digest and nonce ride in slots 15 to 17; the header in 0-13', () => {
    const op = fullySignedOp(signer);
    const packed = packOp(op);
    expect(packed).toHaveLength(18);
    expect(packed.slice(0, 9)).toEqual([op.origin, 42, op.ts, 'set', 'rec-9', 'team', 'relay', 3, 'alice']);
    expect(packed.slice(9, 14)).toEqual([op.data, op.meta, 'k', [1, 2], { x: 1 }]);
    expect(packed[14]).toBeNull();
    expect(packed.slice(15)).toEqual([op.sig, op.digest, op.nonce]);
  });

  it('OPS-2: absent fields are null in the pack and absent (not undefined) after unpacking', () => {
    const op: Op = { origin: 'a', seq: 1, ts: 0, type: 'delete', id: 'x' };
    const packed = packOp(op);
    expect(packed.slice(5)).toEqual(new Array(13).fill(null));
    const back = unpackOp(JSON.parse(JSON.stringify(packed)));
    expect(back).toEqual({ ok: true, op });
    expect(back.ok && Object.keys(back.op)).toEqual(['origin', 'seq', 'ts', 'type', 'id']);
  });

  it('OPS-2: every type round-trips through JSON, signed or not', () => {
    const ops = opsOfEachType(signer.origin);
    const signed = ops.map((op) => signOp(op, signer.privateKey));
    for (const page of [ops, signed]) {
      expect(unpackOps(JSON.parse(JSON.stringify(packOps(page))))).toEqual({ ops: page, malformed: 0 });
    }
  });

  it('keeps log flags in slot 14 for unpackEntry; the wire ignores them', () => {
    const [op] = opsOfEachType(signer.origin);
    const flags = FLAG_HELD | FLAG_SKIPPED | FLAG_SEALED;
    expect([FLAG_HELD, FLAG_SKIPPED, FLAG_SEALED]).toEqual([1, 2, 4]);
    expect(packOp(op, flags)[14]).toBe(7);
    expect(unpackEntry(packOp(op, flags))).toEqual({ op, flags: 7 });
    expect(unpackEntry(packOp(op))).toEqual({ op, flags: 0 });
    expect(unpackOp(packOp(op, FLAG_SEALED))).toEqual({ ok: true, op });
    expect(unpackEntry([...packOp(op).slice(0, 14), -1, null, null, null])).toBeUndefined();
    expect(unpackEntry('nope')).toBeUndefined();
  });

  it('GUAR-3: counts entries of the wrong shape as malformed and keeps the rest', () => {
    const [write, set] = opsOfEachType(signer.origin);
    const bad = [null, 'x', [], packOp(write).slice(0, 17), [...packOp(write), null], { 0: write.origin }];
    const wrongType = packOp(set);
    wrongType[3] = 'explode' as Op['type'];
    const result = unpackOps([packOp(write), ...bad, wrongType, packOp(set)]);
    expect(result.ops).toEqual([write, set]);
    expect(result.malformed).toBe(bad.length + 1);
    expect(result.reason).toMatch(/18 slots/);
    expect(unpackOps({ ops: [] })).toEqual({ ops: [], malformed: 1, reason: 'page: not an array' });
  });

  it('property: packOps/unpackOps round-trip, also through JSON', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 5 }), (ops) => {
        expect(unpackOps(packOps(ops))).toEqual({ ops, malformed: 0 });
        const viaJson = JSON.parse(JSON.stringify(ops)) as Op[];
        expect(unpackOps(JSON.parse(JSON.stringify(packOps(ops))))).toEqual({ ops: viaJson, malformed: 0 });
      }),
      { numRuns: 1000 },
    );
  });

  it('GUAR-3 property: unpackOps never throws on anything', () => {
    fc.assert(
      fc.property(fc.anything({ withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withBigInt: true }), (value) => {
        const result = unpackOps(value);
        expect(result.ops.length + result.malformed).toBeGreaterThanOrEqual(Array.isArray(value) ? value.length : 1);
      }),
      { numRuns: 1000 },
    );
  });

  it('GUAR-3 property: unpackOps never throws on mutated valid packs, and what it takes is well-formed', () => {
    const slot = fc.integer({ min: 0, max: 18 });
    const junk = fc.anything({ withNullPrototype: true, withBoxedValues: true, withBigInt: true });
    fc.assert(
      fc.property(opArb, slot, junk, (op, index, value) => {
        const packed: unknown[] = packOp(op);
        packed[index] = value;
        const result = unpackOps([packed]);
        expect(result.ops.length + result.malformed).toBe(1);
        for (const taken of result.ops) expect(checkShape(taken)).toEqual({ ok: true, op: taken });
      }),
      { numRuns: 1000 },
    );
  });

  it('GUAR-3 property: a pack is checked in one pass exactly as checkShape checks the op its slots name (same op, same reason)', () => {
    const fields = ['origin', 'seq', 'ts', 'type', 'id', 'scope', 'from', 'v', 'actor', 'data', 'meta', 'key', 'value', 'vector', undefined, 'sig', 'digest', 'nonce'];
    const longWay = (packed: unknown[]) => {
      const op: Record<string, unknown> = {};
      fields.forEach((f, i) => { if (f !== undefined && packed[i] !== null && packed[i] !== undefined) op[f] = packed[i]; });
      return checkShape(op);
    };
    const junk = fc.anything({ withNullPrototype: true, withBoxedValues: true, withBigInt: true });
    fc.assert(
      fc.property(opArb, fc.integer({ min: 0, max: 17 }), junk, (op, index, value) => {
        const packed: unknown[] = packOp(op);
        packed[index] = index === 14 ? null : value;
        expect(unpackOp(packed)).toEqual(longWay(packed));
      }),
      { numRuns: 1000 },
    );
  });
});
