import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type LaunchOptions } from 'playwright-core';

/** Debian's Chromium; SYNCOM_CHROMIUM points elsewhere. Nothing here ever downloads a browser. */
export const CHROMIUM = process.env.SYNCOM_CHROMIUM ?? '/usr/bin/chromium';

/** CI sets SYNCOM_REQUIRE_CHROMIUM=1: a missing browser then fails instead of skipping. */
export const REQUIRE_CHROMIUM = process.env.SYNCOM_REQUIRE_CHROMIUM === '1';

/** Quiet, offline-friendly flags: no sandbox (containers), no GPU, no background traffic. */
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export const hasChromium = (): boolean => existsSync(CHROMIUM);

function launchOptions(): LaunchOptions {
  return { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS };
}

/** One browser for a test file; each test takes fresh contexts from it (a fresh profile each). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch(launchOptions());
}

/** A browser on a profile directory of its own, kept across close/reopen: a reload or restart sees the same OPFS. */
export class Profile {
  readonly dir = mkdtempSync(join(tmpdir(), 'syncom-chromium-'));

  open(): Promise<BrowserContext> {
    return chromium.launchPersistentContext(this.dir, launchOptions());
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let told = false;

/**
 * describe() when Chromium is there. Without it: outside CI one line and the
 * file skipped; with SYNCOM_REQUIRE_CHROMIUM=1 a failing test naming the path.
 */
export function describeBrowser(name: string, fn: () => void): void {
  if (hasChromium()) return describe(name, fn);
  if (REQUIRE_CHROMIUM) {
    return describe(name, () => {
      it('needs Chromium', () => {
        throw new Error(`${CHROMIUM} is missing and SYNCOM_REQUIRE_CHROMIUM=1: apt-get install -y chromium`);
      });
    });
  }
  // One plain line (jest decorates console.log with a stack).
  if (!told) process.stderr.write(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set SYNCOM_CHROMIUM)\n`);
  told = true;
  describe.skip(name, fn);
}
