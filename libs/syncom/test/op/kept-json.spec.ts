import fc from 'fast-check';
import { packOp } from '../../src/op';
import { entriesJson, takeJson } from '../../src/op/kept-json';
import { packedJson } from '../../src/op/pack';
import { opArb } from './fixtures';

const runs = (base: number) => ({ numRuns: Number(process.env.FC_RUNS ?? base) });

describe('an entry stringified once for the log and its record file', () => {
  it('LOG-1 SIG-12: a batch packed while keeping the data of ops whose data is their record is exactly JSON.stringify of the packed ops', () => {
    fc.assert(fc.property(fc.array(opArb, { maxLength: 6 }), fc.nat(7), (ops, flags) => {
      const items = ops.map((op, i) => ({ op, flags: i % 2 ? flags : 0, after: op.data !== undefined && i % 3 !== 2 ? op.data : undefined }));
      expect(packedJson(items)).toBe(JSON.stringify(items.map((it) => packOp(it.op, it.flags))));
      // Each kept text is taken once, and is the entry's own JSON.
      for (const it of items) if (it.op.data !== undefined) expect(takeJson(it.op.data)).toBe(JSON.stringify(it.op.data));
    }), runs(300));
  });

  it('the record file takes the text the packing kept, once, and makes the others; an op whose data is not its record keeps none', () => {
    const kept = { id: 'a', latest: [1, 'n'], fields: {} };
    const joined = { id: 'b', latest: [2, 'n'], fields: {} };
    const op = (id: string, data: object) => ({ origin: 'n', seq: 1, ts: 1, type: 'merge' as const, id, data: data as never });
    packedJson([{ op: op('a', kept), after: kept }, { op: op('b', joined), after: { ...joined } }]);
    // Entries are immutable; a member changed behind the log's back shows which text was kept.
    (kept.fields as Record<string, unknown>).x = 1;
    (joined.fields as Record<string, unknown>).x = 1;
    expect(entriesJson([kept, joined])).toBe('[{"id":"a","latest":[1,"n"],"fields":{}},{"id":"b","latest":[2,"n"],"fields":{"x":1}}]');
    expect(takeJson(kept)).toBe(JSON.stringify(kept));
    expect(entriesJson([])).toBe('[]');
  });
});
