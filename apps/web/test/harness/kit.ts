import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './chromium';
import type { Kit } from './page-kit';
import { PageServer } from './server';

/** page-kit's helpers called from Node: each call one page.evaluate. */
export type RemoteKit = { [K in keyof Kit]: (...args: Parameters<Kit[K]>) => Promise<Awaited<ReturnType<Kit[K]>>> };

/** The kit of a page that loaded the test bundle. */
export function kitOf(page: Page): RemoteKit {
  return new Proxy({} as RemoteKit, {
    get: (_t, method: string) => (...args: unknown[]) =>
      page.evaluate(([m, a]) => ((globalThis as any).kit[m as string] as (...x: unknown[]) => unknown)(...(a as unknown[])), [method, args] as const),
  });
}

/** A tab: its page and its kit. */
export interface Tab {
  page: Page;
  kit: RemoteKit;
}

/**
 * One browser and one page server for a test file (beforeAll/afterAll), and
 * fresh contexts for tests: a context is a profile of its own (its own OPFS),
 * and its tabs share it.
 */
export class BrowserEnv {
  browser: Browser | undefined;
  readonly server = new PageServer();
  private readonly contexts: BrowserContext[] = [];

  async start(): Promise<void> {
    await this.server.start();
    this.browser = await launchBrowser();
  }

  async context(): Promise<BrowserContext> {
    const c = await (this.browser as Browser).newContext();
    this.contexts.push(c);
    return c;
  }

  /** A new tab of `context` on the test page. */
  async tab(context: BrowserContext): Promise<Tab> {
    const page = await context.newPage();
    page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
    await page.goto(this.server.url);
    await page.waitForFunction(() => 'kit' in globalThis);
    return { page, kit: kitOf(page) };
  }

  async stop(): Promise<void> {
    for (const c of this.contexts.splice(0)) await c.close().catch(() => undefined);
    await this.browser?.close();
    await this.server.stop();
  }
}
