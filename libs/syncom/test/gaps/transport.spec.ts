import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Every .ts file under a directory. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers a file imports, requires or dynamically imports (relative ones left out; comments ignored). */
function imported(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s+['"]([^'"]+)['"]/g, /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const re of patterns) for (const m of text.matchAll(re)) if (!m[1].startsWith('.')) out.push(m[1]);
  return out;
}

/** A transport: a network module of Node.js, or a client/server package for sockets, websockets or http. */
const TRANSPORT = /^(node:)?(http|https|http2|net|tls|dgram|dns)(\/|$)|^(ws|socket\.io|socket\.io-client|engine\.io|engine\.io-client|undici|axios|node-fetch|got|superagent|isomorphic-ws|reconnecting-websocket|@alexify\/wrpc|@nestjs\/.*|express|fastify)(\/|$)/;

describe('the transport is injected', () => {
  it('LINK-1: the engine\'s package depends on no transport package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const deps = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((k) => Object.keys(pkg[k] ?? {}));
    expect(deps.filter((d) => TRANSPORT.test(d))).toEqual([]);
  });

  it('LINK-1: no file under libs/syncom/src imports a transport; every package it imports is a dependency or a Node.js built-in', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const files = sources(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(10);
    const byFile = files.map((f) => [f.slice(ROOT.length + 1), imported(readFileSync(f, 'utf8'))] as const);
    expect(byFile.filter(([, specs]) => specs.some((s) => TRANSPORT.test(s)))).toEqual([]);
    const packageOf = (s: string) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
    const foreign = byFile.flatMap(([f, specs]) => specs.filter((s) => !s.startsWith('node:') && !(packageOf(s) in (pkg.dependencies ?? {}))).map((s) => `${f}: ${s}`));
    expect(foreign).toEqual([]);
  });
});
