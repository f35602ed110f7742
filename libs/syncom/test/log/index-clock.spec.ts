import { afterEdit, INDEX, store } from './index-edits';

/**
 * log/index.json carries no checksum, and its clock was taken as it read.
 * One digit rotted there (the JSON still valid) was not noticed, and moved
 * the node's clock ahead: its stamps won every register and peers refused
 * its ops as SKEW. A clock further ahead than maxSkew and than every op the
 * log holds is reported, and the newest held stamp taken.
 */

describe('log/index.json whose clock rotted, the JSON still valid', () => {
  it('LOG-5 CLK-8: its clock (ts) moved a century ahead of every stamp the log holds: reported or refused, and the next own stamp is not from the future', async () => {
    const { backend } = await store();
    const r = await afterEdit(backend, (index) => { index.ts += 100 * 365 * 86_400_000; });
    if ('refused' in r) return expect(r.refused).toMatchObject({ code: 'STORE_DAMAGED', file: INDEX });
    expect(r.seen).toContainEqual(expect.objectContaining({ file: INDEX }));
    expect(r.op.ts).toBeLessThan(Date.now() + 86_400_000);
  });
});
