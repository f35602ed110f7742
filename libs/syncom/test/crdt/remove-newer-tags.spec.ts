import { applyOp, type Entry } from '../../src/crdt';
import type { Op } from '../../src/op/types';

const run = (ops: Op[]): Entry | undefined => ops.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, undefined);

describe('a remove naming an add tag newer than itself', () => {
  it('CLK-2 OPS-12: is read without that tag, so the same ops in any order leave one entry', () => {
    // B's write at 3 resets the record; A's remove, also at 3 but of origin A (older than (3, B)), names the tag 3:B,
    // which no node could have seen before making it: on one node the remove met the reset, on the other the reverse.
    const w3 = { type: 'write', ts: 3, origin: 'B', data: {}, id: 'r', seq: 1 } as Op;
    const r3 = { type: 'remove', ts: 3, origin: 'A', key: 's', value: [[1, ['3:B']], [1, ['1:A']]], id: 'r', seq: 2 } as Op;
    const a1 = { type: 'add', ts: 1, origin: 'A', key: 's', value: [1], id: 'r', seq: 3 } as Op;
    const w1 = { type: 'write', ts: 1, origin: 'A', data: {}, id: 'r', seq: 4 } as Op;
    const orders = [[w3, r3, a1, w1], [r3, a1, w1, w3], [a1, r3, w3, w1], [w1, a1, w3, r3]];
    const entries = orders.map((o) => JSON.stringify(run(o)));
    expect(new Set(entries).size).toBe(1);
  });
});
