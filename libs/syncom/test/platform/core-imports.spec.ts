import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const src = join(__dirname, '../../src');

/** The engine core (everything the browser entry reaches) and the Node-only files that stay out of it. */
const CORE = ['op', 'crdt', 'log', 'storage', 'sync', 'link', 'reconcile', 'schema', 'platform', 'telemetry'];
const CORE_FILES = ['open.ts', 'errors.ts', 'error-codes.ts', 'browser.ts', 'sealed/index.ts', 'backend/memory-backend.ts',
  'backend/memory-controls.ts', 'backend/memory-files.ts', 'backend/memory-faults.ts', 'backend/memory-damage.ts', 'backend/paths.ts', 'backend/lock.ts', 'backend/types.ts'];
/** Node's side of the seam: reached only from the `syncom` entry (node-platform.ts). */
const NODE_ONLY = new Set(['platform/node.ts', 'platform/node-signer.ts']);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const coreFiles = (): string[] =>
  [...CORE.flatMap((d) => walk(join(src, d))), ...CORE_FILES.map((f) => join(src, f))].filter((f) => !NODE_ONLY.has(relative(src, f)));

/** Code without comments and string contents that are not module specifiers, enough to find identifiers. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

describe('the engine core runs on any platform', () => {
  it('imports no node: module (nor a Node builtin by its bare name), requires nothing, and uses no Buffer, setImmediate or process.nextTick', () => {
    const found: string[] = [];
    for (const file of coreFiles()) {
      const text = code(readFileSync(file, 'utf8'));
      const rel = relative(src, file);
      for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm)) {
        if (!m[1] && /^(node:|crypto$|fs$|os$|path$|util$|worker_threads$|timers$)/.test(m[2])) found.push(`${rel}: imports ${m[2]}`);
      }
      // A literal require is a Node module load an ES module in a browser cannot do (bundlers inline it whole).
      for (const m of text.matchAll(/require\(\s*'([^']+)'\s*\)|\b(Buffer|setImmediate|nextTick)\b/g)) found.push(`${rel}: ${m[1] ? `require ${m[1]}` : m[2]}`);
    }
    expect(found).toEqual([]);
  });

  it('keeps Node-only files (fs backend, CLI, sealing over node:crypto, the signer threads) out of the core\'s static imports', () => {
    const nodeOnly = /(backend\/fs-|backend\/index|\/cli\/|sealed\/(box|log-cipher|record-cipher)|platform\/node|node-platform|node-install)/;
    const found: string[] = [];
    for (const file of coreFiles()) {
      const text = code(readFileSync(file, 'utf8'));
      for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gm)) {
        if (m[1]) continue;
        const target = join(file, '..', m[2]);
        if (nodeOnly.test(relative(src, target))) found.push(`${relative(src, file)} -> ${m[2]}`);
      }
    }
    expect(found).toEqual([]);
  });
});

describe('the package version', () => {
  it('is the one package.json names (src/version.ts, which the telemetry reports without reading package.json)', () => {
    const { VERSION } = require('../../src/version') as { VERSION: string };
    expect(VERSION).toBe((JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version);
  });
});
