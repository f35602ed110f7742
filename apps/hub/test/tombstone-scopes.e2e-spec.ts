import { until } from '../../example-api/test/apps';
import { RawClient } from './raw-client';
import type { Storage } from 'syncom';
import { TestHubs } from './test-hubs';

const config = { tokens: ['full', 'doc'], tokenScopes: new Map([['doc', ['Doc']]]) };

/** A Note deleted, another purged, and a Doc, on `s`. */
async function stocked(s: Storage): Promise<{ deleted: string; purged: string; doc: string }> {
  const deleted = await s.insert({ $type: 'Note', title: 'deleted' });
  await s.delete(deleted);
  const purged = await s.insert({ $type: 'Note', title: 'purged' });
  await s.purge(purged);
  return { deleted, purged, doc: await s.insert({ $type: 'Doc', title: 'a doc' }) };
}

/**
 * A hub whose tokens are bound to scopes serves a Doc token Doc's records and
 * the global ones. A Note record deleted or purged leaves a tombstone or a
 * purge marker with no field to place it by: it must stay Note's across a
 * restart of the hub (docs/security.md, A token holder), or the Doc token's
 * snapshot lists every Note record ever deleted or purged.
 */
describe('apps/hub: a deleted or purged record of another scope, after a restart (hostile, e2e)', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  it('SCOPE-20: a Doc token\'s snapshot holds neither a Note tombstone nor a Note purge marker once the hub has restarted', async () => {
    const first = await hubs.start('restarted', config);
    const s = first.storage;
    const { doc } = await stocked(s);
    await first.app.close();

    const again = await hubs.start('restarted', config);
    const client = await RawClient.connect(again.syncomUrl, 'doc');
    expect(await client.hello(['Doc'], 'doc')).toMatchObject({ ok: true });
    const page = (await client.call('snapshot', { scopes: ['Doc'] })) as { ok: boolean; value: { total: number; entries: { id: string }[] } };
    expect(page.ok).toBe(true);
    expect(page.value.entries.map((e) => e.id)).toEqual([doc]);
    expect(page.value.total).toBe(1);
    client.close();
  });

  it('SCOPE-20 BOOT-2: a hub that joins another (SYNCOM_PEERS) and bootstraps from it serves a Doc token neither a Note tombstone nor a Note purge marker', async () => {
    const first = await hubs.start('first', config);
    const s = first.storage;
    const { deleted, purged, doc } = await stocked(s);
    const second = await hubs.start('second', { ...config, peers: [first.syncomUrl], peerToken: 'full' });
    const held = (id: string) => second.storage.replica.records.get(id) !== undefined;
    await until(() => held(deleted) && held(purged) && held(doc), [second.storage]);
    const client = await RawClient.connect(second.syncomUrl, 'doc');
    expect(await client.hello(['Doc'], 'doc')).toMatchObject({ ok: true });
    const page = (await client.call('snapshot', { scopes: ['Doc'] })) as { ok: boolean; value: { total: number; entries: { id: string }[] } };
    expect(page.value.entries.map((e) => e.id)).toEqual([doc]);
    expect(page.value.total).toBe(1);
    client.close();
  });
});
