import { build } from 'esbuild';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { buildBrowserBundle } from '../../../../bench/suites/browser-bundle';

/**
 * The browser bundle's budget, gzipped (KB of 1,024 bytes): `syncom/browser` with `syncom/socket.io`
 * bundled from the sources, which give the same bytes as the package's ES module build that a
 * bundler honouring the `browser` condition gets (bench/suites/browser-bundle.ts measures that
 * build; the pack test checks the two agree). It measures about 86.5 (85.7 before the fixes of
 * 2026-12-06's evening reviews: app callbacks and failed saves that left a node not syncing, write
 * options and list() options checked, a page in hand not handed over twice after a reconnect), and
 * about 87.1 since a page or push waiting on a beforeApply that never answers is let go at stop and
 * close, 87.6 with the open-time damage checks of index.json's vector and of a file's parse cost, 88.5 with
 * OPFS errors at open as IO_ERROR, drift warnings sampled, rate buckets bounded and the hold of a stream,
 * 89.4 with seqs no op shows kept in index.json and peer labels of the counters bounded. The published target (README, `npm run bench:targets`) is 60 KB, reported not met; what made
 * it grow is in docs/benchmarks.md ("The browser bundle, change by change"). This guard stops growth beyond 90 KB.
 */
const BUDGET_KB = 90;

describe('the browser bundle (syncom/browser + syncom/socket.io, esbuild, minified)', () => {
  it('holds no node: import, no Node-only module, no class-validator, no @opentelemetry/api and no error-code text, and stays within 90 KB gzipped', async () => {
    const bundle = await buildBrowserBundle('src');
    const kb = bundle.gzipBytes / 1024;
    process.stdout.write(`browser bundle: ${kb.toFixed(1)} KB gzipped (${(bundle.bytes / 1024).toFixed(1)} KB minified)\n`);
    // A node: import left in the text would fail in a browser at load.
    expect(bundle.text).not.toMatch(/(from\s*|import\s*\(\s*|require\s*\(\s*)["']node:/);
    const nodeOnly = bundle.inputs.filter((f) => /(backend\/fs-|\/cli\/|sealed\/(box|log-cipher|record-cipher)|platform\/node|node-platform|class-validator|class-transformer)/.test(f));
    expect(nodeOnly).toEqual([]);
    // What the app brings, or the docs say, rather than the bundle.
    expect(bundle.inputs.filter((f) => /@opentelemetry|error-text\.(ts|js)/.test(f))).toEqual([]);
    expect(kb).toBeLessThanOrEqual(BUDGET_KB);
  });
});

describe("the browser entry's test tools", () => {
  it('leave the memory link, its fault dice and the memory backend\'s fault injection and crash damage out of the bundle (Node has them)', async () => {
    // Parsed (api.ts names them) but shaken out: what counts is the bytes each module puts in the output.
    const out = await build({
      entryPoints: [join(__dirname, '../../src/browser.ts')], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, outdir: 'out', logLevel: 'silent',
    });
    const [output] = Object.values(out.metafile.outputs);
    const inBundle = Object.entries(output.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([f]) => f);
    expect(inBundle.filter((f) => /backend\/memory-backend/.test(f))).toHaveLength(1);
    expect(inBundle.filter((f) => /backend\/memory-(controls|faults|damage)|link\/(memory-link|link-faults)/.test(f))).toEqual([]);
  });
});

describe('the browser bundle runs where Node is not', () => {
  it('opens a store, writes and reads with no process, require, Buffer or setImmediate in scope; a sealed write and createMemoryLink are UNSUPPORTED; ERROR_CODES keep their statuses', async () => {
    const entry = `
      import { createMemoryLink, ERROR_CODES, open, platform } from ${JSON.stringify(join(__dirname, '../../src/browser.ts'))};
      globalThis.run = async () => {
        const s = await open({ path: 'x', backend: 'memory' });
        const id = await s.insert({ a: 1 });
        const got = await s.get(id);
        const sealed = await s.insert({ b: 2 }, { sealed: true }).then(() => 'written', (e) => e.code);
        const link = (() => { try { createMemoryLink(s.sync.unit()); return 'made'; } catch (e) { return e.code; } })();
        await s.close();
        return { platform: platform().name, got, sealed, link, locked: ERROR_CODES.LOCKED.status };
      };`;
    const out = await build({ stdin: { contents: entry, resolveDir: __dirname, loader: 'ts' }, bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent' });
    // A page's globals, and nothing of Node's.
    const page: Record<string, unknown> = {
      crypto: globalThis.crypto, TextEncoder, TextDecoder, MessageChannel, setTimeout, clearTimeout, setInterval, clearInterval,
      queueMicrotask, structuredClone, console, performance, URL, AbortController, Event, EventTarget,
    };
    page.globalThis = page;
    runInNewContext(out.outputFiles[0].text, page);
    const result = await (page.run as () => Promise<{ platform: string; got: unknown; sealed: string; link: string; locked: number }>)();
    expect({ ...result, got: { ...(result.got as object) } }).toEqual({ platform: 'web', got: { a: 1 }, sealed: 'UNSUPPORTED', link: 'UNSUPPORTED', locked: 423 });
  });
});
