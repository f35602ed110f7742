import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildBrowserBundle } from '../../../../bench/suites/browser-bundle';
import { consumerFiles, esmConsumerFiles, linkSnippets } from './consumer-app';

const root = join(__dirname, '..', '..', '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (args: string[], cwd: string) => execFileSync(npm, args, { cwd, stdio: 'pipe', encoding: 'utf8' });

/** Packs a workspace lib into `into`; answers the tarball's path. */
function pack(lib: string, into: string): string {
  const [info] = JSON.parse(run(['pack', '--json', '--pack-destination', into], join(root, 'libs', lib))) as { filename: string }[];
  return join(into, info.filename);
}

/** A Nest app's dependencies at one Nest major, with the two tarballs. */
function dependencies(major: number, tarballs: string[]): Record<string, string> {
  const nest = ['common', 'core', 'platform-express', 'websockets', 'platform-socket.io'];
  return {
    ...Object.fromEntries(nest.map((p) => [`@nestjs/${p}`, `^${major}.0.0`])),
    syncom: `file:${tarballs[0]}`, 'syncom-nest': `file:${tarballs[1]}`,
    'reflect-metadata': '^0.2.2', rxjs: '^7.8.2', 'socket.io': '^4.8.0', 'socket.io-client': '^4.8.0',
    '@types/node': '^20.19.0',
  };
}

/** Writes `files` under `dir`. */
function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
}

/**
 * An install without the registry: the tarballs unpacked into `dir`'s
 * node_modules, and beside them a link to every other package the
 * repository's `npm ci` installed (socket.io-client, @nestjs/*, @types/node).
 */
function installOffline(dir: string, tarballs: Record<string, string>): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (!name.startsWith('.') && !(name in tarballs)) symlinkSync(join(root, 'node_modules', name), join(modules, name), 'junction');
  }
  for (const [name, tarball] of Object.entries(tarballs)) {
    mkdirSync(join(modules, name));
    execFileSync('tar', ['-xzf', tarball, '-C', join(modules, name), '--strip-components=1']);
  }
}

/** Runs the repository's tsc in `dir`; rejects with its diagnostics. */
function tsc(dir: string, ...args: string[]): void {
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', ...args], { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
  } catch (e) {
    throw new Error(`tsc failed in ${dir}:\n${(e as { stdout?: string }).stdout ?? String(e)}`);
  }
}

/** Starts the compiled app; resolves with the process and its port once it listens. */
function start(dir: string, env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const read = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the app exited (${code}):\n${out}`)));
  });
}

/**
 * The tarballs a user installs: in an ES module app, offline (the packages
 * the repository installed stand in for the registry's), and in a fresh app
 * with Nest 11 and with Nest 12 (ESM-only; the compiled CommonJS app requires
 * it, Node >= 20.19), which needs the npm registry; npm's cache makes a
 * second run fast.
 */
describe('the packed syncom and syncom-nest in a fresh app', () => {
  const work = mkdtempSync(join(tmpdir(), 'syncom-pack-'));
  const children: ChildProcess[] = [];
  let tarballs: string[];

  beforeAll(() => {
    tarballs = [pack('syncom', work), pack('syncom-nest', work)];
  }, 120_000);

  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('the tarballs hold LICENSE, README, the guides the README points to, dist and every source their maps name, and no tsbuildinfo', () => {
    for (const t of tarballs) {
      const files = execFileSync('tar', ['-tzf', t], { encoding: 'utf8' }).split('\n');
      expect(files).toEqual(expect.arrayContaining(['package/LICENSE', 'package/README.md', 'package/dist/index.js', 'package/src/index.ts', 'package/docs/api.md', 'package/docs/nest.md']));
      expect(files.filter((f) => f.includes('tsbuildinfo'))).toEqual([]);
      const out = mkdtempSync(join(work, 'unpacked-'));
      execFileSync('tar', ['-xzf', t, '-C', out]);
      const unresolved = files.filter((f) => f.endsWith('.js.map')).flatMap((f) => {
        const map = JSON.parse(readFileSync(join(out, f), 'utf8')) as { sources: string[] };
        return map.sources.map((s) => resolve(dirname(join(out, f)), s)).filter((s) => !existsSync(s));
      });
      expect(unresolved).toEqual([]);
    }
  });

  it('every relative link of the packed guides opens a file of the installed packages (the repository\'s ../libs/ and ../bench/ are not there)', () => {
    const modules = join(work, 'links', 'node_modules');
    for (const [name, t] of [['syncom', tarballs[0]], ['syncom-nest', tarballs[1]]]) {
      mkdirSync(join(modules, name), { recursive: true });
      execFileSync('tar', ['-xzf', t, '-C', join(modules, name), '--strip-components=1']);
    }
    const broken = ['syncom', 'syncom-nest'].flatMap((name) => {
      const docs = join(modules, name, 'docs');
      return readdirSync(docs).flatMap((f) => {
        const text = readFileSync(join(docs, f), 'utf8');
        const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1].split('#')[0]).filter((s) => s !== '' && !/^[a-z]+:/i.test(s));
        return targets.filter((s) => !existsSync(resolve(docs, s))).map((s) => `${name}/docs/${f}: ${s}`);
      });
    });
    expect(broken).toEqual([]);
  });

  it('an ES module app (nodenext) hands io()\'s socket and options to the link and the module, and the READMEs\' examples compile as written (offline)', () => {
    const dir = join(work, 'esm');
    const snippets = [
      ...linkSnippets(readFileSync(join(root, 'README.md'), 'utf8').split(/^## In plain Node$/m)[1].split(/^## /m)[0]),
      ...linkSnippets(readFileSync(join(root, 'libs/syncom/README.md'), 'utf8')),
    ];
    expect(snippets).toHaveLength(2);
    writeFiles(dir, esmConsumerFiles(snippets));
    installOffline(dir, { syncom: tarballs[0], 'syncom-nest': tarballs[1] });
    // syncom is CommonJS: a socket.io-client type named in its .d.ts is the CommonJS build's, while io() here is the ESM build's.
    expect((JSON.parse(readFileSync(join(dir, 'node_modules/syncom/package.json'), 'utf8')) as { type?: string }).type).toBeUndefined();
    tsc(dir);
  });

  it('a bundler that honours the browser condition gets the ES module build from the tarball: syncom/browser with syncom/socket.io, and with syncom/host, bundles to what the bench measures (the CommonJS build had been about a third larger)', async () => {
    const dir = join(work, 'web');
    mkdirSync(dir, { recursive: true });
    installOffline(dir, { syncom: tarballs[0] });
    const { build } = await import('esbuild');
    const bundle = async (resolveDir: string, entry: string) => {
      const out = await build({
        stdin: { contents: entry, resolveDir, loader: 'js' }, bundle: true, minify: true, platform: 'browser', format: 'esm', write: false,
        external: ['socket.io-client'], logLevel: 'silent', legalComments: 'none',
      });
      return gzipSync(out.outputFiles[0].contents, { level: 9 }).length;
    };
    const installed = await bundle(dir, "export * from 'syncom/browser'; export * as socketIo from 'syncom/socket.io';");
    const measured = (await buildBrowserBundle()).gzipBytes;
    expect(Math.abs(installed - measured)).toBeLessThan(512);
    // syncom/host takes the browser condition too: a page that hosts gets the same module instances as syncom/browser.
    const hosting = await bundle(dir, "export * from 'syncom/browser'; export * as socketIo from 'syncom/socket.io'; export * as host from 'syncom/host';");
    expect(Math.abs(hosting - (await buildBrowserBundle('esm', { host: true })).gzipBytes)).toBeLessThan(512);
    expect(hosting - installed).toBeGreaterThan(8 * 1024);
    const cjs = await bundle(dir, "export * from './node_modules/syncom/dist/browser.js'; export * as socketIo from './node_modules/syncom/dist/socket.io/index.js';");
    expect(cjs).toBeGreaterThan(installed * 1.15);
    // Every relative import of the ES module build names its file, as webpack 5 insists in a "type": "module" folder.
    const esm = join(dir, 'node_modules/syncom/dist/esm');
    expect(JSON.parse(readFileSync(join(esm, 'package.json'), 'utf8'))).toEqual({ type: 'module' });
    const unresolved: string[] = [];
    const walkJs = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walkJs(join(d, e.name)) : e.name.endsWith('.js') ? [join(d, e.name)] : []));
    for (const file of walkJs(esm)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]*)\1/g)) {
        if (!m[2].endsWith('.js') || !existsSync(resolve(dirname(file), m[2]))) unresolved.push(`${file}: ${m[2]}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it.each([11, 12])('Nest %i: installs, compiles with tsc --strict, and a REST write on one instance reaches the other; HOST-8 the app\'s gateway.guards read the procedure and meta, its APP_GUARD reaches the gateway on Nest 12 only', async (major) => {
    const dir = join(work, `nest${major}`);
    writeFiles(dir, consumerFiles);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-nest${major}`, private: true, dependencies: dependencies(major, tarballs) }));
    run(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], dir);
    const core = JSON.parse(readFileSync(join(dir, 'node_modules/@nestjs/core/package.json'), 'utf8')) as { version: string };
    expect(core.version.split('.')[0]).toBe(String(major));
    // One copy of syncom: Storage injects by type only when the app and syncom-nest share it.
    expect(readdirSync(join(dir, 'node_modules/syncom-nest')).includes('node_modules')).toBe(false);
    tsc(dir, '--strict');
    const hub = await start(dir, { ROLE: 'host', DATA: join(dir, 'data/hub') });
    children.push(hub.child);
    const node = await start(dir, { ROLE: 'dial', DATA: join(dir, 'data/node'), HUB: `http://127.0.0.1:${hub.port}/syncom` });
    children.push(node.child);
    const post = await fetch(`http://127.0.0.1:${node.port}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `from nest ${major}` }) });
    const { id } = (await post.json()) as { id: string };
    const arrived = await fetch(`http://127.0.0.1:${hub.port}/notes/${id}`);
    expect(await arrived.json()).toMatchObject({ $type: 'Note', title: `from nest ${major}` });
    const seen = (await (await fetch(`http://127.0.0.1:${hub.port}/notes/seen`)).json()) as { gateway: { procedure: string }[]; global: number };
    const meta = { rateLimit: 100 };
    expect(seen.gateway).toEqual(expect.arrayContaining(['hello', 'push'].map((procedure) => ({ procedure, meta }))));
    // Nest 11 gives a gateway no global guard (hence gateway.guards); Nest 12 runs them before the gateway's own (docs/nest.md).
    if (major === 11) expect(seen.global).toBe(0);
    else expect(seen.global).toBeGreaterThanOrEqual(seen.gateway.length);
    const stopped = [hub.child, node.child].map((c) => new Promise((resolve) => c.once('exit', resolve)));
    hub.child.kill('SIGTERM');
    node.child.kill('SIGTERM');
    await Promise.all(stopped);
  }, 150_000);
});
