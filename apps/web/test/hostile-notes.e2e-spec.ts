import type { Browser, Page } from 'playwright-core';
import type { Storage } from 'syncom';
import { TestHubs, type TestHub } from '../../hub/test/test-hubs';
import { BODY_CHARS, BRIEF_CHARS, LIST_CHARS, SHOWN_TAGS, TAG_CHARS, TITLE_CHARS } from '../src/list-bounds';
import { describeBrowser, launchBrowser } from './harness/chromium';
import { requireWebDist } from './harness/web-dist';
import { nodeDialer } from './node-peers';

/** Markup that runs `globalThis.pwned = where` if it ever becomes elements, or an attribute breaks out of its quotes. */
const payload = (where: string) =>
  `<img src=x onerror="globalThis.pwned='${where}'"><script>globalThis.pwned='${where}'</script>" onmouseover="globalThis.pwned='${where}'`;

/**
 * The notes app (served by the hub, with its headers) against what another
 * peer may sync: any text in any field and in the record id, and as many
 * large notes as the hub's limits let through.
 */
describeBrowser('the notes app and a hostile peer\'s notes', () => {
  const hubs = new TestHubs();
  let browser: Browser;
  let hub: TestHub;
  let peer: Storage;

  /** A fresh profile on the app, once it shows `count` notes (the peer's, bootstrapped from the hub). */
  async function appWith(count: number): Promise<Page> {
    await peer.sync.synced(hub.syncomUrl, { timeout: 30_000 });
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${hub.url}/#token=t`);
    await page.waitForFunction((n) => (globalThis as any).syncomApp.state().notes === n, count, { timeout: 30_000 });
    return page;
  }

  beforeAll(async () => {
    requireWebDist();
    browser = await launchBrowser();
    hub = await hubs.start('hub');
    peer = await nodeDialer('peer');
    await peer.sync.addNode({ url: hub.syncomUrl, token: 't' });
  });
  afterAll(async () => {
    await peer?.close();
    await browser?.close();
    await hubs.stopAll();
  });

  it('markup in a peer\'s title, body, tags and record id shows as text: no element is made, nothing of it runs', async () => {
    const id = `x"]><img src=x onerror="globalThis.pwned='id'">`;
    await peer.set(id, { $type: 'Note', title: payload('title'), body: payload('body'), tags: [payload('tag')], views: payload('views') });
    const page = await appWith(1);
    const item = page.locator('[data-testid=note-item]');
    expect(await item.getAttribute('data-id')).toBe(id);
    expect(await item.getByTestId('note-title-text').textContent()).toBe(payload('title'));
    expect(await item.getByTestId('note-body-text').textContent()).toBe(payload('body'));
    expect(await item.getByTestId('note-tag').getAttribute('data-tag')).toBe(payload('tag').slice(0, TAG_CHARS));
    expect(await item.getByTestId('note-views').textContent()).toBe('0 views');
    await item.getByTestId('note-tag').hover();
    expect(await page.evaluate(() => ({
      pwned: (globalThis as any).pwned,
      foreign: (globalThis as any).document.querySelectorAll('[data-testid=note-list] img, [data-testid=note-list] script').length,
    }))).toEqual({ pwned: undefined, foreign: 0 });
  });

  it('the page refuses to parse a string as markup (Trusted Types): a sink a later change adds throws instead of running a peer\'s text', async () => {
    const page = await appWith(1);
    const refused = await page.evaluate((html) => {
      try {
        (globalThis as any).document.body.insertAdjacentHTML('beforeend', html);
        return null;
      } catch (e) {
        return (e as Error).name;
      }
    }, payload('sink'));
    expect(refused).toBe('TypeError');
    expect(await page.evaluate(() => (globalThis as any).pwned)).toBeUndefined();
  });

  it('notes past LIST_CHARS show brief: 40 notes of 100,000 characters and 50 tags each are not laid out whole', async () => {
    const big = 40;
    for (let i = 0; i < big; i++) {
      const tags = Array.from({ length: SHOWN_TAGS }, (_, j) => `${i}-${j}-`.padEnd(TAG_CHARS, 't'));
      await peer.insert({ $type: 'Note', title: `big ${i}`, body: `${i} `.padEnd(BODY_CHARS, 'lorem ipsum '), tags });
    }
    const page = await appWith(big + 1);
    const list = page.getByTestId('note-list');
    // Whole, this list is 40 * 105,000 characters and 2,000 tags; within the budget, two notes show whole.
    const shown = await list.evaluate((el) => el.textContent?.length ?? 0);
    expect(shown).toBeLessThan(LIST_CHARS + BODY_CHARS + TITLE_CHARS + SHOWN_TAGS * TAG_CHARS + (big + 1) * 1_000);
    expect(await list.getByTestId('note-tag').count()).toBeLessThanOrEqual(LIST_CHARS / TAG_CHARS + SHOWN_TAGS);

    const newest = list.getByTestId('note-item').first();
    expect(await newest.getByTestId('note-body-text').evaluate((e) => e.textContent?.length)).toBe(BODY_CHARS);
    expect(await newest.getByTestId('note-tag').count()).toBe(SHOWN_TAGS);

    const oldest = list.locator('[data-testid=note-item]', { hasText: 'big 0' });
    expect(await oldest.getByTestId('note-body-text').textContent()).toBe(`${'0 '.padEnd(BODY_CHARS, 'lorem ipsum ').slice(0, BRIEF_CHARS)}… (${BODY_CHARS - BRIEF_CHARS} more characters)`);
    expect(await oldest.getByTestId('note-tag').count()).toBe(0);
    expect(await oldest.getByTestId('tags-more').textContent()).toBe(`${SHOWN_TAGS} tags`);
  });
});
