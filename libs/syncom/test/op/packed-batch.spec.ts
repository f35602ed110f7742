import fc from 'fast-check';
import { packOp } from '../../src/op';
import { packedBytes, packedJson } from '../../src/op/pack';
import { opArb } from './fixtures';

const runs = (base: number) => ({ numRuns: Number(process.env.FC_RUNS ?? base) });

describe('packedJson of a batch', () => {
  it('LOG-1 SIG-12: is exactly JSON.stringify of the packed ops, whether every op is flagged (one stringify) or not (one per op), holes read null', () => {
    fc.assert(fc.property(fc.array(fc.option(opArb, { nil: undefined }), { maxLength: 6 }), fc.integer({ min: 1, max: 15 }), fc.boolean(), (ops, flag, all) => {
      const items = ops.map((op, i) => (op ? { op, flags: all || i % 2 ? flag : 0 } : undefined));
      expect(packedJson(items)).toBe(JSON.stringify(items.map((it) => (it ? packOp(it.op, it.flags) : null))));
    }), runs(200));
  });

  it('an unflagged op packed in a batch knows its wire size; a flagged one is measured when asked', () => {
    const op = (seq: number) => ({ origin: 'n', seq, ts: 1, type: 'merge' as const, id: `r${seq}`, data: { id: `r${seq}`, latest: [1, 'n'], fields: {} } as never });
    const [a, b] = [op(1), op(2)];
    packedJson([{ op: a, flags: 8 }, { op: b, flags: 0 }]);
    for (const x of [a, b]) expect(packedBytes(x)).toBe(new TextEncoder().encode(JSON.stringify(packOp(x))).length);
  });
});
