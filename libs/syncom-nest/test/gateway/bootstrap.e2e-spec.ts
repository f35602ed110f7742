import type { Storage } from 'syncom';
import { socketDialer } from '../helpers/dialer';
import { type TestHub } from '../helpers/hub';
import { gatewayFixture } from '../helpers/fixture';
import { until } from '../helpers/until';

const rows = async (s: Storage) => (await s.list()).map((r) => [r.id, r.data]);

describe('bootstrap over the socket.io gateway', () => {
  let hub: TestHub | undefined;
  const { storages, startHub } = gatewayFixture();

  async function bootstrapFrom(h: TestHub, big = 0) {
    await Promise.all(Array.from({ length: 300 }, (_, i) => h.storage.insert({ i, pad: 'x'.repeat(60) })));
    for (let i = 0; i < big; i++) await h.storage.insert({ big: i, pad: 'y'.repeat(10_000) });
    const a = await socketDialer();
    storages.push(a.storage);
    const boots: unknown[] = [];
    a.storage.sync.on('bootstrap', (e) => boots.push(e));
    await a.storage.sync.addNode({ url: h.url });
    await until(() => boots.length === 1, [a.storage], 'the bootstrap');
    expect(boots).toEqual([{ url: h.url, records: 300 + big }]);
    expect(await rows(a.storage)).toEqual(await rows(h.storage));
    const sent = (event: string) => a.sent.filter(([e]) => e === event).map(([, p]) => p as Record<string, unknown>);
    return { a, snapshots: sent('snapshot'), chunks: sent('chunk') };
  }

  it('BOOT-2 LINK-5 HOST-6 PROTO-7 (issue 6.3): pages stay within pageBytes; a record above it comes alone, streamed as NDJSON and pulled chunk by chunk', async () => {
    hub = await startHub({ options: { pageSize: 50, pageBytes: 4096 } });
    const { snapshots, chunks } = await bootstrapFrom(hub, 2);
    // About 30 of the small records fit 4 KiB: more pages than pageSize alone would make, and one for each big record.
    expect(snapshots.length).toBeGreaterThan(302 / 50 + 2);
    expect(snapshots.every((s) => s.stream === true)).toBe(true);
    // Each big record's page: one pull for its one whole-record chunk and one that finds the end.
    expect(chunks).toHaveLength(4);
    expect(new Set(chunks.map((c) => c.stream)).size).toBe(2);
    expect(chunks.some((c) => c.cancel)).toBe(false);
  });

  it('HOST-5 HOST-6: pages under pageBytes come inline; nothing is pulled', async () => {
    hub = await startHub({ options: { pageSize: 100 } });
    const { snapshots, chunks } = await bootstrapFrom(hub);
    expect(snapshots).toHaveLength(3);
    expect(chunks).toEqual([]);
  });
});
