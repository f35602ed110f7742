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
  it('LINK-1: the engine\'s package depends on no transport package; socket.io-client is only an optional peer, for the socket.io entry', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    const deps = ['dependencies', 'optionalDependencies'].flatMap((k) => Object.keys(pkg[k] ?? {}));
    expect(deps.filter((d) => TRANSPORT.test(d))).toEqual([]);
    const peers = Object.keys(pkg.peerDependencies ?? {}).filter((d) => TRANSPORT.test(d));
    expect(peers).toEqual(['socket.io-client']);
    expect(pkg.peerDependenciesMeta?.['socket.io-client']).toEqual({ optional: true });
  });

  it('LINK-1: no file under libs/syncom/src imports a transport at run time (the socket.io entry names socket.io-client\'s types only: the caller hands in the socket); every package imported is a dependency, a peer or a Node.js built-in', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
    const files = sources(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(10);
    const runtime = (text: string) => text.replace(/^\s*import\s+type\s[^;]*;/gm, '');
    const byFile = files.map((f) => [f.slice(ROOT.length + 1), imported(runtime(readFileSync(f, 'utf8')))] as const);
    expect(byFile.filter(([, specs]) => specs.some((s) => TRANSPORT.test(s)))).toEqual([]);
    const packageOf = (s: string) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
    const known = { ...pkg.dependencies, ...pkg.peerDependencies };
    const foreign = byFile.flatMap(([f, specs]) => specs.filter((s) => !s.startsWith('node:') && !(packageOf(s) in known)).map((s) => `${f}: ${s}`));
    expect(foreign).toEqual([]);
  });
});
