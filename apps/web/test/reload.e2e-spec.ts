import { describeBrowser } from './harness/chromium';
import { pageAndHubs } from './harness/page-and-hubs';

const TOKEN = 't';
const RECORDS = 6_000;

describeBrowser('a page that goes mid-work', () => {
  const { env, hubs } = pageAndHubs();

  it('BOOT-1: reloaded with part of a bootstrap joined, the page opens the store again (its lock let go, not LOCKED) and ends with every record', async () => {
    const hub = await hubs.start('reload', { webDir: false });
    for (let i = 0; i < RECORDS; i += 2_000) {
      await Promise.all(Array.from({ length: 2_000 }, (_, k) => hub.storage.insert({ $type: 'Note', title: `note ${i + k}`, body: 'x'.repeat(40) })));
    }
    const { page, kit } = await env.tab(await env.context());
    const first = await kit.open('boot', { hub: { url: hub.syncomUrl, token: TOKEN } });
    const before = await kit.untilCount('boot', 1);
    process.stderr.write(`reloaded with ${before} of ${RECORDS} records joined\n`);
    await page.reload();
    await page.waitForFunction(() => 'kit' in globalThis);
    expect(await kit.open('boot')).toEqual(first);
    expect(await kit.untilCount('boot', RECORDS)).toBe(RECORDS);
    await kit.synced('boot', hub.syncomUrl, 45_000);
    const written = await hub.storage.insert({ $type: 'Note', title: 'after the reload' });
    await kit.untilCount('boot', RECORDS + 1);
    expect(await kit.get('boot', written)).toEqual({ $type: 'Note', title: 'after the reload' });
  });

  it('a tab closed while it writes: every write whose promise resolved is in the store a new tab opens', async () => {
    const context = await env.context();
    const { page, kit } = await env.tab(context);
    await kit.open('closing');
    const resolved: string[] = [];
    let enough!: () => void;
    const half = new Promise<void>((resolve) => { enough = resolve; });
    await page.exposeFunction('resolvedWrite', (id: string) => {
      resolved.push(id);
      if (resolved.length === 100) enough();
    });
    // 5,000 writes in flight at once, each told to the test as its promise resolves; the tab goes after 100.
    await page.evaluate(() => {
      const g = globalThis as unknown as { kit: { insert(n: string, d: object): Promise<string> }; resolvedWrite(id: string): void };
      for (let i = 0; i < 5_000; i++) void g.kit.insert('closing', { i }).then((id) => g.resolvedWrite(id), () => undefined);
    });
    await half;
    await page.close();
    const told = [...resolved];
    const next = await env.tab(context);
    // The closed tab's Web Lock goes with it; wait: true waits for that, not for a tab that is gone.
    expect(await next.kit.open('closing', { wait: true })).toHaveProperty('id');
    const ids = new Set((await next.kit.list('closing')).map((r) => r.id));
    process.stderr.write(`tab closed with ${told.length} writes resolved; ${ids.size} in the store reopened\n`);
    expect(told.filter((id) => !ids.has(id))).toEqual([]);
    await next.kit.insert('closing', { after: true });
  });
});
