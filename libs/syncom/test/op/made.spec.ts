import { checkShape, type Op } from '../../src/op';
import { isMadeHere, markMade, newOwnOp } from '../../src/op/made';
import { internals } from '../../src/testing/internals';
import { closeAll, node } from '../sync/helpers';

/** An op as makeOwnOp builds one: on the marking prototype, its fields set one by one. */
function ownWrite(): Op {
  const op = newOwnOp();
  Object.assign(op, { origin: 'me', seq: 1, ts: 1_700_000_000_000, type: 'write', id: 'r', scope: '*', data: { a: 1 } });
  return op;
}

describe('the mark of ops made here (a node signs only ops it made)', () => {
  it('SIG-13 SIG-15: an own op is marked; no copy of it is (JSON, spread, structuredClone), nor an op parsed from JSON that names __proto__', () => {
    const op = ownWrite();
    expect(isMadeHere(op)).toBe(true);
    const text = JSON.stringify(op);
    expect(isMadeHere(JSON.parse(text) as Op)).toBe(false);
    expect(isMadeHere({ ...op })).toBe(false);
    expect(isMadeHere(Object.assign({}, op))).toBe(false);
    expect(isMadeHere(structuredClone(op))).toBe(false);
    const hostile = JSON.parse('{"origin":"me","seq":2,"ts":1,"type":"write","id":"r","__proto__":{"madeHere":true}}') as Op;
    expect(isMadeHere(hostile)).toBe(false);
    expect(isMadeHere(Object.assign({}, hostile))).toBe(false);
  });

  it('the mark adds no field: JSON, keys and deep equality see the op\'s fields alone', () => {
    const op = ownWrite();
    const literal = { origin: 'me', seq: 1, ts: 1_700_000_000_000, type: 'write', id: 'r', scope: '*', data: { a: 1 } };
    expect(JSON.stringify(op)).toBe(JSON.stringify(literal));
    expect(Object.keys(op)).toEqual(Object.keys(literal));
    expect(Reflect.ownKeys(op)).toEqual(Object.keys(literal));
    expect(op).toEqual(literal);
  });

  it('checkShape takes an own op of this process as a plain one, and gives back an unmarked copy', () => {
    const op = ownWrite();
    const checked = checkShape(op);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.op).not.toBe(op);
    expect(isMadeHere(checked.op)).toBe(false);
    expect(checked.op).toEqual(op);
    // Anything else off Object.prototype is still no op.
    expect(checkShape(Object.assign(Object.create({ x: 1 }) as object, { ...op })).ok).toBe(false);
  });

  it('markMade marks an op read back from this node\'s own log, once', () => {
    const op = JSON.parse(JSON.stringify(ownWrite())) as Op;
    expect(markMade(op)).toBe(op);
    expect(isMadeHere(op)).toBe(true);
    expect(markMade(op)).toBe(op);
    expect(op).toEqual({ origin: 'me', seq: 1, ts: 1_700_000_000_000, type: 'write', id: 'r', scope: '*', data: { a: 1 } });
  });

  it('SIG-13: the ops a storage makes are marked and signed; a peer\'s copy of them would not be', async () => {
    const s = await node({ sync: { signatures: 'verify' } });
    try {
      await s.insert({ a: 1 });
      const [logged] = internals(s).log.read(0).map((e) => e.op);
      expect(isMadeHere(logged)).toBe(true);
      expect(typeof logged.sig).toBe('string');
      expect(isMadeHere(JSON.parse(JSON.stringify(logged)) as Op)).toBe(false);
    } finally {
      await closeAll(s);
    }
  });
});
