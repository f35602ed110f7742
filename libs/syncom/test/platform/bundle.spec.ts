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
 * OPFS errors at open as IO_ERROR, drift warnings sampled, rate buckets bounded and the hold of a stream, 90.0 with
 * seqs no op shows kept in index.json, counters' peer labels bounded and a schema's validation linear in nested
 * wide objects; 79.4 since the hosting side is `syncom/host`'s (79.9 with the evening's last checks, 82.2 with a removed record's scope
 * carried in pages, tokens hidden in failed spans and the costs of kind clashes and ties bounded; 83.3 with a type change's
 * verdict kept per record state; 84.9 with the hostile-host checks and the four-node model's fixes, 85.3 with a sealed segment's
 * hash checked at open, its entries judged one by one where it fails, 85.7 with a host that keeps dropping
 * its connections redialed backed off and record files written for several batches; 86.4 with an epoch minted at
 * each open, the earlier ones kept for their cursors, a push answer naming the duplicates another page had queued and
 * record files' sums; 86.6 with a failed late signing kept open and tried again, feeds waiting for it; 86.9 with
 * the failure paths of that evening's audits: failed pushes and feeds tried again, a seal kept whole, and more;
 * 87.5 with the next session's: a registry that writes nothing after close and runs one node's saves and removals
 * in order, record files a merge could not remove tracked, a failed append's sealed mark undone, and more; 88.9 with
 * the audits after it: streams a refusal stopped held instead of pushed again at every page, a hello that lowers the
 * acked marks, a page with an op refused as SKEW kept, a host's own ops pushed back to it, a stream's next op
 * pushed at once while the peer is behind, a schema's maxAhead),
 * which a page that only dials
 * leaves out (about 10.6 KB: the unit, its feeds, snapshot pager, shared pages and reconcile host, and a gateway's
 * limit helpers). The published target (README, `npm run bench:targets`) is 60 KB, reported not met; what made
 * it grow is in docs/benchmarks.md ("The browser bundle, change by change"). This guard stops growth beyond 89 KB.
 */
const BUDGET_KB = 89;

describe('the browser bundle (syncom/browser + syncom/socket.io, esbuild, minified)', () => {
  it('holds no node: import, no Node-only module, no class-validator, no @opentelemetry/api, no error-code text and no hosting side, and stays within 89 KB gzipped', async () => {
    const bundle = await buildBrowserBundle('src');
    const kb = bundle.gzipBytes / 1024;
    process.stdout.write(`browser bundle: ${kb.toFixed(1)} KB gzipped (${(bundle.bytes / 1024).toFixed(1)} KB minified)\n`);
    // A node: import left in the text would fail in a browser at load.
    expect(bundle.text).not.toMatch(/(from\s*|import\s*\(\s*|require\s*\(\s*)["']node:/);
    const nodeOnly = bundle.inputs.filter((f) => /(backend\/fs-|\/cli\/|sealed\/(box|log-cipher|record-cipher)|platform\/node|node-platform|class-validator|class-transformer)/.test(f));
    expect(nodeOnly).toEqual([]);
    // What the app brings, or the docs say, rather than the bundle.
    expect(bundle.inputs.filter((f) => /@opentelemetry|error-text\.(ts|js)/.test(f))).toEqual([]);
    // A page that dials carries no host unit: `syncom/host` brings it to the page that hosts.
    expect(bundle.inputs.filter((f) => /sync\/host\/|host-install/.test(f))).toEqual([]);
    expect(kb).toBeLessThanOrEqual(BUDGET_KB);
  });

  it('with syncom/host holds the hosting side, which is what the dialing bundle leaves out', async () => {
    const [dialing, hosting] = [await buildBrowserBundle('src'), await buildBrowserBundle('src', { host: true })];
    process.stdout.write(`browser bundle with syncom/host: ${(hosting.gzipBytes / 1024).toFixed(1)} KB gzipped\n`);
    expect(hosting.inputs.filter((f) => /sync\/host\/(unit|feed|snapshot|shared-pages|reconcile-host)\.ts/.test(f))).toHaveLength(5);
    expect(hosting.gzipBytes - dialing.gzipBytes).toBeGreaterThan(8 * 1024);
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

/** Bundles `entry` for a page (iife) and runs it in a context with a page's globals and nothing of Node's; returns what its `run` resolves to. */
async function runInPage<T>(entry: string): Promise<T> {
  const out = await build({ stdin: { contents: entry, resolveDir: __dirname, loader: 'ts' }, bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent' });
  const page: Record<string, unknown> = {
    crypto: globalThis.crypto, TextEncoder, TextDecoder, MessageChannel, setTimeout, clearTimeout, setInterval, clearInterval,
    queueMicrotask, structuredClone, console, performance, URL, AbortController, Event, EventTarget,
  };
  page.globalThis = page;
  runInNewContext(out.outputFiles[0].text, page);
  return (page.run as () => Promise<T>)();
}

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
    const result = await runInPage<{ platform: string; got: unknown; sealed: string; link: string; locked: number }>(entry);
    expect({ ...result, got: { ...(result.got as object) } }).toEqual({ platform: 'web', got: { a: 1 }, sealed: 'UNSUPPORTED', link: 'UNSUPPORTED', locked: 423 });
  });

  const hostingEntry = (withHost: boolean) => `
    ${withHost ? `import ${JSON.stringify(join(__dirname, '../../src/host.ts'))};` : ''}
    import { open } from ${JSON.stringify(join(__dirname, '../../src/browser.ts'))};
    globalThis.run = async () => {
      const s = await open({ path: 'x', backend: 'memory' });
      const id = await s.insert({ a: 1 });
      let unit;
      try { unit = s.sync.unit({ access: 'public' }); } catch (e) { await s.close(); return { code: e.code, message: e.message }; }
      const ctx = {};
      const hello = await unit.call('hello', { node: 'p', vector: {}, epoch: 'e', schema: null, scopes: ['*'] }, ctx);
      const page = await unit.call('snapshot', { offset: 0 }, ctx);
      await s.close();
      return { host: hello.node === s.id, ids: page.entries.map((e) => e.id), id };
    };`;

  it("storage.sync.unit() fails UNSUPPORTED, naming syncom/host, when the page did not import it", async () => {
    const result = await runInPage<{ code: string; message: string }>(hostingEntry(false));
    expect(result.code).toBe('UNSUPPORTED');
    expect(result.message).toContain('import the syncom/host entry');
  });

  it('with syncom/host imported, storage.sync.unit() hosts: it answers a hello and serves a snapshot', async () => {
    const result = await runInPage<{ host: boolean; ids: string[]; id: string }>(hostingEntry(true));
    expect(result.host).toBe(true);
    expect(result.ids).toEqual([result.id]);
  });
});
