import type { Browser, Page } from 'playwright-core';
import { http, until, type Running } from '../../example-api/test/apps';
import { TestHubs, type TestHub } from '../../hub/test/test-hubs';
import { describeBrowser, launchBrowser } from './harness/chromium';
import { requireWebDist } from './harness/web-dist';

type Note = { id: string; title: string; body: string };

/** The notes app's state, as window.syncomApp.state() answers it. */
const appState = (page: Page) => page.evaluate(() => (globalThis as any).syncomApp.state());

/** Writes a note through the app's form, as a user does. */
async function writeNote(page: Page, title: string, body: string): Promise<void> {
  await page.getByTestId('note-title').fill(title);
  await page.getByTestId('note-body').fill(body);
  await page.getByTestId('note-save').click();
  await page.locator('[data-testid=note-item]', { hasText: title }).waitFor();
}

/** GET /notes on the example-api until a note titled `title` is there (re-asked at each change of its storage). */
async function restNote(api: Running, title: string): Promise<Note> {
  let found: Note | undefined;
  await until(async () => {
    const { body } = await http(`${api.url}/notes`);
    found = (body as Note[]).find((n) => n.title === title);
    return found !== undefined;
  }, [api.storage]);
  return found as Note;
}

describeBrowser('the notes app (apps/web) served by the hub', () => {
  const hubs = new TestHubs();
  let browser: Browser;
  let hub: TestHub;
  let api: Running;
  let page: Page;

  beforeAll(async () => {
    requireWebDist();
    browser = await launchBrowser();
    hub = await hubs.start('hub');
    api = await hubs.apps.api('api', hub.syncomUrl);
    page = await (await browser.newContext()).newPage();
    await page.goto(`${hub.url}/?token=t`);
    await page.evaluate(() => (globalThis as any).syncomApp.ready.then(() => undefined));
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'synced');
  });
  afterAll(async () => {
    await browser?.close();
    await hubs.stopAll();
  });

  it('a note written in the browser app is read through the example-api (GET /notes); a note POSTed there appears in the app', async () => {
    await writeNote(page, 'from the browser', 'typed in Chromium');
    expect(await restNote(api, 'from the browser')).toMatchObject({ body: 'typed in Chromium' });

    const { status, body } = await http(`${api.url}/notes`, 'POST', { title: 'from REST', body: 'posted to example-api' });
    expect(status).toBe(201);
    const item = page.locator(`[data-testid=note-item][data-id="${body.id}"]`);
    await item.waitFor();
    expect(await item.getByTestId('note-title-text').textContent()).toBe('from REST');
    expect(await item.getByTestId('note-body-text').textContent()).toBe('posted to example-api');
  });

  it('notes written while the hub is down stay in OPFS and reach the example-api once the hub is back', async () => {
    const port = Number(new URL(hub.url).port);
    await hub.app.close();
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'disconnected');
    await writeNote(page, 'offline one', 'written with no hub');
    await writeNote(page, 'offline two', 'also with no hub');
    expect((await appState(page)).sync.unacked).toBeGreaterThanOrEqual(2);

    hub = await hubs.start('hub', { port });
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'synced', undefined, { timeout: 30_000 });
    expect(await restNote(api, 'offline one')).toMatchObject({ body: 'written with no hub' });
    expect(await restNote(api, 'offline two')).toMatchObject({ body: 'also with no hub' });
  });

  it('REG-8: reloaded without ?token=, the app has its notes and node id, and syncs with the hub and token its registry kept', async () => {
    const before = await appState(page);
    await page.goto(`${hub.url}/`);
    await page.evaluate(() => (globalThis as any).syncomApp.ready.then(() => undefined));
    expect((await appState(page)).id).toBe(before.id);
    expect(await page.getByTestId('node-id').textContent()).toContain(before.id);
    await page.locator('[data-testid=note-item]', { hasText: 'offline two' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'synced');
    await writeNote(page, 'after reload', 'the kept token still opens the hub');
    expect(await restNote(api, 'after reload')).toMatchObject({ body: 'the kept token still opens the hub' });
  });
});
