import { SortedIds } from '../../src/sync/host/sorted-ids';

/** A seeded id: mixed case, digits and a non-ASCII letter, so code-unit order is exercised. */
function idOf(n: number): string {
  const alphabet = 'aZ09_-éb';
  let s = '';
  for (let x = (n * 2654435761) >>> 0; s.length < 6; x = Math.floor(x / 7)) s += alphabet[x % alphabet.length];
  return `${s}${n}`;
}

describe('snapshot paging: the sorted id list kept between pagings', () => {
  it('PROTO-7: after each growth of the records, the list is every id in code-unit order, the same as sorting them all', () => {
    const map = new Map<string, number>();
    const sorted = new SortedIds();
    expect(sorted.of(map)).toEqual([]);
    let n = 0;
    for (const grow of [1, 0, 5, 100, 1, 37, 0, 250]) {
      for (let k = 0; k < grow; k++) map.set(idOf(n++), n);
      expect(sorted.of(map)).toEqual([...map.keys()].sort());
    }
  });

  it('a list handed out is never changed by a later growth (a paging keeps the list it started with)', () => {
    const map = new Map<string, number>([['m', 1], ['c', 2]]);
    const sorted = new SortedIds();
    const first = sorted.of(map);
    const copy = [...first];
    map.set('a', 3);
    map.set('z', 4);
    const second = sorted.of(map);
    expect(first).toEqual(copy);
    expect(second).toEqual(['a', 'c', 'm', 'z']);
    expect(sorted.of(map)).toBe(second);
  });

  it('another map, or one with fewer keys, is sorted afresh', () => {
    const sorted = new SortedIds();
    expect(sorted.of(new Map([['b', 1], ['a', 2]]))).toEqual(['a', 'b']);
    expect(sorted.of(new Map([['d', 1]]))).toEqual(['d']);
    const shrinking = new Map([['x', 1], ['w', 2], ['v', 3]]);
    expect(sorted.of(shrinking)).toEqual(['v', 'w', 'x']);
    shrinking.delete('w');
    expect(sorted.of(shrinking)).toEqual(['v', 'x']);
  });
});
