import { canonicalJson, type ListedRecord } from 'syncom';
import { recordsDigest } from '../../../scripts/load/checks';

/**
 * The load tool's full peers run in a child process and report a digest of
 * their records; the parent compares it with the hub's records read through
 * its verifier. The digest must say "same" exactly when the records are.
 */
describe('load tool: the full peers\' records digest', () => {
  const records = [
    { id: 'b', data: { n: 2, text: 'é€' } },
    { id: 'a', data: { z: 1, a: [1, { y: 2, x: 3 }] } },
  ] as unknown as ListedRecord[];
  const byId = new Map(records.map((r) => [r.id, canonicalJson(r.data)]));

  it('a peer holding the hub\'s records, in any order, has the hub\'s digest', () => {
    expect(recordsDigest([...records].reverse())).toBe(recordsDigest(byId));
  });

  it('a record missing, added or changed changes the digest', () => {
    const hub = recordsDigest(byId);
    expect(recordsDigest(records.slice(1))).not.toBe(hub);
    expect(recordsDigest([...records, { id: 'c', data: {} } as unknown as ListedRecord])).not.toBe(hub);
    expect(recordsDigest([records[0], { id: 'a', data: { z: 2 } } as unknown as ListedRecord])).not.toBe(hub);
  });
});
