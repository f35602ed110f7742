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
    await page.goto(`${hub.url}/#token=t`);
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

  it('REG-8: reloaded without #token=, the app has its notes and node id, and syncs with the hub and token its registry kept', async () => {
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

  it('a link bringing another token (?token=, or #token=) does not replace the registered one unless the user says Use token; neither form stays in the address bar', async () => {
    const registered = () => page.evaluate(() => (globalThis as any).syncomApp.storage.sync.listNodes()[0].token as string);
    for (const link of [`${hub.url}/?token=theirs`, `${hub.url}/#token=theirs`]) {
      // A fresh load each time (from `/` a #token= link would only change the fragment).
      await page.goto('about:blank');
      await page.goto(link);
      await page.evaluate(() => (globalThis as any).syncomApp.ready.then(() => undefined));
      await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'synced');
      expect(page.url()).toBe(`${hub.url}/`);
      expect(await registered()).toBe('t');
      expect(await page.getByTestId('token-offer').isVisible()).toBe(true);
    }
    // Followed while the page is open, a #token= link changes the fragment alone: offered the same way.
    await page.evaluate(() => {
      const g = globalThis as any;
      g.document.querySelector('[data-testid=token-offer]').hidden = true;
      g.location.hash = 'token=theirs';
    });
    await page.getByTestId('token-offer').waitFor();
    expect(page.url()).toBe(`${hub.url}/`);
    expect(await registered()).toBe('t');
    await page.getByTestId('token-save').click();
    await page.waitForFunction(() => (globalThis as any).syncomApp.storage.sync.listNodes()[0].token === 'theirs');
    expect(await page.getByTestId('token-offer').isVisible()).toBe(false);
    // Put back, for what runs after.
    await page.getByTestId('token-input').fill('t');
    await page.getByTestId('token-save').click();
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().sync?.state === 'synced');
  });

  it('after its first listing the page reads only the records a change names: a peer\'s edit, delete, new note and other record show without list() running again', async () => {
    await page.evaluate(() => {
      const app = (globalThis as any).syncomApp;
      const storage = app.storage;
      const list = storage.list.bind(storage);
      app.lists = 0;
      storage.list = (...args: unknown[]) => (app.lists++, list(...args));
    });
    const { body: kept } = await http(`${api.url}/notes`, 'POST', { title: 'to edit', body: '' });
    const { body: gone } = await http(`${api.url}/notes`, 'POST', { title: 'to delete', body: '' });
    const item = (id: unknown) => page.locator(`[data-testid=note-item][data-id="${id as string}"]`);
    await item(gone.id).waitFor();
    await api.storage.update(kept.id as string, { title: 'edited by a peer' });
    await api.storage.delete(gone.id as string);
    await api.storage.insert({ $type: 'Other', title: 'not a note' });
    await item(kept.id).getByText('edited by a peer').waitFor();
    await item(gone.id).waitFor({ state: 'detached' });
    expect(await page.getByText('not a note').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).syncomApp.lists)).toBe(0);
  });

  it('a read of the notes that fails is shown and tried again with no further change: the note it missed appears and the error goes', async () => {
    await page.evaluate(() => {
      const storage = (globalThis as any).syncomApp.storage;
      const record = storage.record.bind(storage);
      let failed = false;
      storage.record = (...args: unknown[]) => {
        if (failed) return record(...args);
        failed = true;
        return Promise.reject(Object.assign(new Error('the disk went away'), { code: 'IO_ERROR' }));
      };
    });
    const id = await api.storage.insert({ $type: 'Note', title: 'read after a failure', body: '' });
    await page.waitForFunction(() => /could not read the notes \(retrying\): IO_ERROR/.test((globalThis as any).syncomApp.state().error ?? ''));
    await page.locator(`[data-testid=note-item][data-id="${id}"]`).waitFor();
    await page.waitForFunction(() => (globalThis as any).syncomApp.state().error === null);
    expect(await page.getByTestId('app-error').isHidden()).toBe(true);
  });

  it('a note a peer gave thousands of tags shows 50 of them, each cut to 100 characters, and counts the rest', async () => {
    const { body } = await http(`${api.url}/notes`, 'POST', { title: 'tagged by a peer', body: '' });
    const id = body.id as string;
    await api.storage.add(id, 'tags', Array.from({ length: 60 }, (_, i) => `${i}-${'x'.repeat(200)}`));
    const item = page.locator(`[data-testid=note-item][data-id="${id}"]`);
    await item.getByText('and 10 more tags').waitFor();
    const shown = await item.getByTestId('note-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag') ?? ''));
    expect(shown).toHaveLength(50);
    expect(shown.every((t) => t.length === 100)).toBe(true);
  });

  it('a note a peer gave a title and a body of megabytes shows as much of them as the form lets a user type (500 and 100,000 characters) and counts the rest', async () => {
    const id = await api.storage.insert({ $type: 'Note', title: 'T'.repeat(1_000_000), body: 'B'.repeat(1_000_000) });
    const item = page.locator(`[data-testid=note-item][data-id="${id}"]`);
    await item.waitFor();
    const title = await item.getByTestId('note-title-text').evaluate((e) => e.textContent ?? '');
    const body = await item.getByTestId('note-body-text').evaluate((e) => e.textContent ?? '');
    expect(title).toBe(`${'T'.repeat(500)}… (999500 more characters)`);
    expect(body).toBe(`${'B'.repeat(100_000)}… (900000 more characters)`);
  });
});
