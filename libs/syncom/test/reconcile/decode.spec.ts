import { decodeMessage, WIRE_LIMITS } from '../../src/reconcile';

const TAG = 'AAAAAAAAAAAAAAAAAAAAAA';
const refusal = (reason: RegExp) => ({ ok: false, code: 'RECONCILE_MALFORMED', reason: expect.stringMatching(reason) });

describe('RECON decodeMessage', () => {
  it('takes every mode and rebuilds the message from its checked parts', () => {
    const msg = {
      v: 1,
      ranges: [
        [[5, ''], 0], [[5, 'a'], 1, TAG], [[6, ''], 2, [TAG]], [[7, 'b'], 3, [['id', TAG]]], [[9, ''], 4, ['x'], [0, 3]], [null, 5],
      ],
      extra: 'dropped',
    };
    const d = decodeMessage(msg);
    expect(d).toEqual({ ok: true, message: { v: 1, ranges: msg.ranges } });
    if (d.ok) expect(d.message.ranges[2]).not.toBe(msg.ranges[2]);
  });

  it.each([
    ['no object', 'x', /object/],
    ['an array', [], /object/],
    ['another version', { v: 2, ranges: [[null, 0]] }, /version 2/],
    ['no version', { ranges: [[null, 0]] }, /version/],
    ['no ranges', { v: 1, ranges: [] }, /ranges/],
    ['a last range short of the end', { v: 1, ranges: [[[1, 'a'], 0]] }, /end at null/],
    ['null before the end', { v: 1, ranges: [[null, 0], [null, 0]] }, /only the last/],
    ['bounds out of order', { v: 1, ranges: [[[2, ''], 0], [[1, 'z'], 0], [null, 0]] }, /increase/],
    ['equal bounds', { v: 1, ranges: [[[2, 'a'], 0], [[2, 'a'], 0], [null, 0]] }, /increase/],
    ['a first range ending at the start', { v: 1, ranges: [[[0, ''], 0], [null, 0]] }, /increase/],
    ['a negative ts', { v: 1, ranges: [[[-1, ''], 0], [null, 0]] }, /upper bound/],
    ['a fractional ts', { v: 1, ranges: [[[1.5, ''], 0], [null, 0]] }, /upper bound/],
    ['an overlong bound', { v: 1, ranges: [[[1, 'x'.repeat(513)], 0], [null, 0]] }, /upper bound/],
    ['an unknown mode', { v: 1, ranges: [[null, 6]] }, /mode/],
    ['a skip with a payload', { v: 1, ranges: [[null, 0, 1]] }, /skip/],
    ['a short fingerprint', { v: 1, ranges: [[null, 1, 'AAAA']] }, /fingerprint/],
    ['a fingerprint off the alphabet', { v: 1, ranges: [[null, 1, `${TAG.slice(1)}+`]] }, /fingerprint/],
    ['too many tags', { v: 1, ranges: [[null, 2, new Array(WIRE_LIMITS.list + 1).fill(TAG)]] }, /at most/],
    ['a bad tag', { v: 1, ranges: [[null, 2, ['x']]] }, /shape/],
    ['an item with an empty id', { v: 1, ranges: [[null, 3, [['', TAG]]]] }, /shape/],
    ['a diff with positions out of order', { v: 1, ranges: [[null, 4, [], [3, 1]]] }, /increasing/],
    ['a diff with a repeated position', { v: 1, ranges: [[null, 4, [], [1, 1]]] }, /increasing/],
    ['a diff giving too many ids', { v: 1, ranges: [[null, 4, new Array(WIRE_LIMITS.give + 1).fill('x'), []]] }, /give/],
    ['a defer before the end', { v: 1, ranges: [[[1, ''], 5], [null, 0]] }, /defer/],
    ['a sparse give', { v: 1, ranges: [[null, 4, Object.assign(new Array(3), { 1: 'x' }), []]] }, /give/],
    ['a sparse tags list', { v: 1, ranges: [[null, 2, new Array(2)]] }, /shape/],
  ])('refuses %s', (_, input, reason) => {
    expect(decodeMessage(input)).toEqual(refusal(reason));
  });

  it('refuses, without reading them whole, lists that claim lengths past the wire limits', () => {
    const claims = (length: number) => new Proxy([], { get: (t, k) => (k === 'length' ? length : Reflect.get(t, k)) });
    expect(decodeMessage({ v: 1, ranges: claims(2 ** 30) })).toMatchObject({ ok: false });
    expect(decodeMessage({ v: 1, ranges: [[null, 2, claims(2 ** 30)]] })).toMatchObject({ ok: false });
  });

  it('refuses a message listing more ids in all than a message may', () => {
    const full = new Array(WIRE_LIMITS.list).fill(TAG);
    const n = WIRE_LIMITS.ids / WIRE_LIMITS.list + 1;
    const ranges = Array.from({ length: n }, (_, k) => [k === n - 1 ? null : [k + 1, ''], 2, full]);
    expect(decodeMessage({ v: 1, ranges })).toEqual(refusal(/too many ids/));
  });

  it('never throws on values JSON cannot make: proxies that trap, getters that throw, bigints, symbols, cycles', () => {
    const trap = new Proxy({}, { get: () => { throw new Error('trap'); } });
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    const getter = Object.defineProperty({ v: 1 }, 'ranges', { get: () => { throw new Error('getter'); } });
    const cyclic: unknown[] = [null, 0];
    cyclic.push(cyclic);
    for (const input of [trap, revocable.proxy, getter, 10n, Symbol('s'), () => 1, { v: 1, ranges: [cyclic] }, { v: 1, ranges: [[null, 1, 10n]] }]) {
      expect(decodeMessage(input)).toMatchObject({ ok: false, code: 'RECONCILE_MALFORMED' });
    }
  });

  it('takes a __proto__ member as data, polluting nothing', () => {
    const input = JSON.parse('{"__proto__":{"polluted":1},"v":1,"ranges":[[null,0]]}');
    expect(decodeMessage(input)).toEqual({ ok: true, message: { v: 1, ranges: [[null, 0]] } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
