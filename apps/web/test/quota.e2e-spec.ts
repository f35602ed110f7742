import type { Browser, Page } from 'playwright-core';
import { TestHubs, type TestHub } from '../../hub/test/test-hubs';
import { describeBrowser, launchBrowser } from './harness/chromium';
import { requireWebDist } from './harness/web-dist';

const shown = (page: Page, id: string) => page.locator(`[data-testid=note-item][data-id="${id}"]`);

describeBrowser('the notes app with the origin\'s storage quota full', () => {
  const hubs = new TestHubs();
  let browser: Browser;
  let hub: TestHub;
  beforeAll(async () => {
    requireWebDist();
    browser = await launchBrowser();
    hub = await hubs.start('hub');
  });
  afterAll(async () => {
    await browser?.close();
    await hubs.stopAll();
  });

  it('a peer\'s note that OPFS refused for the quota arrives once there is room again, with no further write at the hub (not at the next anti-entropy, 3 minutes on)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${hub.url}/#token=t`);
    await page.evaluate(() => (globalThis as any).syncomApp.ready.then(() => undefined));
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'synced');
    const origin = new URL(hub.url).origin;
    const cdp = await context.newCDPSession(page);
    const usage = await page.evaluate(async () => ((await (globalThis as any).navigator.storage.estimate()).usage as number | undefined) ?? 0);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 1000 });

    const id = await hub.storage.insert({ $type: 'Note', title: 'from a peer', body: 'p'.repeat(200_000) });
    await page.waitForFunction(() => /QuotaExceededError/.test((globalThis as any).syncomApp.state().sync?.error ?? ''));
    expect(await shown(page, id).count()).toBe(0);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    await shown(page, id).waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'synced');
    await context.close();
  }, 90_000);
});
