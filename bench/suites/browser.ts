import type { webcrypto } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { hasChromium, CHROMIUM, launchBrowser } from '../../apps/web/test/harness/chromium';
import { PageServer } from '../../apps/web/test/harness/server';
import type { Benchmark, Profile, Suite } from '../lib/types';
import { SIGN_BASELINE, VERIFY_BASELINE } from './baselines';
import { BrowserBootstrap } from './browser-bootstrap';

const SIGN = 'browser/ed25519.sign';
const VERIFY = 'browser/ed25519.verify';
const BOOTSTRAP = 'browser/bootstrap/10k';
/** Checks in flight at once, as the browser's verifyOps runs them (SIG-28). */
const VERIFY_WIDTH = 64;

/**
 * Web Crypto Ed25519 in headless Chromium over a header shaped like signOp's
 * (about 200 bytes), the key made untimed; timed inside the page
 * (performance.now), so the DevTools round trip is not counted. Signing
 * awaits each signature as a write does; verification runs 64 at a time.
 */
function cryptoRun(page: Page, what: 'sign' | 'verify', ops: number, width: number): Promise<number> {
  return page.evaluate(async ({ what, ops, width }) => {
    const key = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const a = 'A'.repeat(43);
    const header = new TextEncoder().encode(JSON.stringify([1, a, 12345, Date.now(), 'write', crypto.randomUUID(), '*', null, null, 'user-1234', a]));
    const sig = await crypto.subtle.sign('Ed25519', key.privateKey, header);
    const start = performance.now();
    if (what === 'sign') {
      for (let i = 0; i < ops; i++) await crypto.subtle.sign('Ed25519', key.privateKey, header);
    } else {
      for (let i = 0; i < ops; i += width) {
        const n = Math.min(width, ops - i);
        const ok = await Promise.all(Array.from({ length: n }, () => crypto.subtle.verify('Ed25519', key.publicKey, sig, header)));
        if (ok.includes(false)) throw new Error('a good signature did not check');
      }
    }
    return performance.now() - start;
  }, { what, ops, width });
}

/**
 * The browser's figures beside Node's in the same run: Web Crypto sign and
 * verify rates (baselines: node:crypto's ed25519.sign and ed25519.verify),
 * and a fresh page bootstrapping 10,000 records from a hub into OPFS.
 * Without Chromium the suite says so on one line and adds no rows.
 */
export function browserSuite(profile: Profile): Suite {
  if (!hasChromium()) {
    process.stderr.write(`browser bench skipped: no Chromium at ${CHROMIUM}\n`);
    return { benchmarks: [] };
  }
  const ops = profile.quick ? 2_000 : 10_000;
  const server = new PageServer();
  const boot = new BrowserBootstrap(10_000);
  let browser: Browser | undefined;
  let page: Page | undefined;
  const on = () => page as Page;
  const teardown = async (): Promise<void> => {
    await boot.teardown();
    await browser?.close();
    await server.stop();
  };
  const benchmarks: Benchmark[] = [
    { name: SIGN, unit: 'ops/s', baseline: SIGN_BASELINE, ops, run: () => cryptoRun(on(), 'sign', ops, 1) },
    { name: VERIFY, unit: 'ops/s', baseline: VERIFY_BASELINE, ops, run: () => cryptoRun(on(), 'verify', ops, VERIFY_WIDTH) },
    { name: BOOTSTRAP, unit: 'ops/s', baseline: null, ops: boot.size, run: () => boot.run(on()) },
  ];
  return {
    benchmarks,
    async setup(selected) {
      try {
        browser = await launchBrowser();
        page = await (await browser.newContext()).newPage();
        await page.goto(await server.start());
        if (selected.has(BOOTSTRAP)) await boot.setup();
      } catch (e) {
        // The runner calls teardown only after a setup that succeeded: no Chromium or child may outlive this one.
        await teardown();
        throw e;
      }
    },
    teardown,
  };
}
