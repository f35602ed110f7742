import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * Every ```ts block of README.md and docs/*.md type-checks against today's sources.
 *
 * Each block becomes a module of its own: its import and `declare` lines are
 * hoisted to the top, and the rest goes inside `export async function example()`
 * so top-level await works, unless the block exports something itself (a Nest
 * module, a class), in which case it is checked as written. All blocks are
 * compiled in one TypeScript program with the repository's tsconfig (its
 * paths resolve 'syncom', 'syncom/testing' and 'syncom-nest' to libs/*\/src).
 * Only the blocks' own diagnostics count: a source file mid-change elsewhere
 * is `npm run typecheck`'s business.
 *
 * A block that is not TypeScript meant to compile (shell, output, pseudo-code)
 * is fenced as something else (sh, json, text), never ts.
 */

const root = resolve(__dirname, '../../../..');

interface Block {
  file: string;
  index: number;
  line: number;
  code: string;
}

function markdownFiles(): string[] {
  const docs = join(root, 'docs');
  let names: string[] = [];
  try {
    names = readdirSync(docs).filter((n) => n.endsWith('.md')).sort();
  } catch {
    // no docs/ yet
  }
  return [join(root, 'README.md'), ...names.map((n) => join(docs, n))];
}

export function extractBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // A block indented under a list item counts too: its fence's indent is taken off each of its lines.
    const fence = /^( *)```(ts|typescript)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const indent = fence[1].length;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^ *```\s*$/.test(lines[end])) end++;
    const code = lines.slice(start, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join('\n');
    blocks.push({ file, index: blocks.length + 1, line: start + 1, code });
    i = end;
  }
  return blocks;
}

/** The block as a module: hoisted imports and declares, the rest in an async function unless it exports. */
export function toModule(code: string): { text: string; offsets: number[] } {
  const lines = code.split('\n');
  const exportsItself = lines.some((l) => /^(export|@)/.test(l));
  const hoisted: number[] = [];
  const body: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^(import|declare)\b/.test(lines[i])) {
      // An import or declare may run over several lines: up to the one that ends it.
      let j = i;
      const ends = (l: string) => /;\s*(\/\/.*)?$/.test(l) || /^import\s+['"]/.test(l);
      while (j < lines.length - 1 && !ends(lines[j])) j++;
      for (let k = i; k <= j; k++) hoisted.push(k);
      i = j;
    } else {
      body.push(i);
    }
  }
  // offsets[n]: the block's line shown at the module's line n (0-based), -1 for a wrapper line.
  const out: string[] = [];
  const offsets: number[] = [];
  const emit = (text: string, from: number) => {
    out.push(text);
    offsets.push(from);
  };
  if (exportsItself) {
    lines.forEach((l, i) => emit(l, i));
    emit('export {};', -1);
  } else {
    for (const i of hoisted) emit(lines[i], i);
    emit('export async function example(): Promise<void> {', -1);
    for (const i of body) emit(lines[i], i);
    emit('}', -1);
  }
  return { text: out.join('\n') + '\n', offsets };
}

describe('docs: every ts block of README.md and docs/*.md', () => {
  it('type-checks in one program with the repository paths', () => {
    const blocks = markdownFiles().flatMap((f) => extractBlocks(relative(root, f), readFileSync(f, 'utf8')));
    expect(blocks.length).toBeGreaterThan(0);

    const configPath = join(root, 'tsconfig.json');
    const config = ts.readConfigFile(configPath, ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
    const options: ts.CompilerOptions = { ...parsed.options, noEmit: true, types: ['node'], incremental: false };

    // Virtual files under the repository root, so node_modules and the paths resolve as for any source file.
    const virtual = new Map<string, { block: Block; offsets: number[]; text: string }>();
    for (const block of blocks) {
      const name = join(root, '.docs-check', `${block.file.replace(/[/.]/g, '_')}_block${block.index}.ts`);
      const { text, offsets } = toModule(block.code);
      virtual.set(name, { block, offsets, text });
    }
    const host = ts.createCompilerHost(options, true);
    const getSourceFile = host.getSourceFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    const readFile = host.readFile.bind(host);
    host.getSourceFile = (name, lang, onError, create) => {
      const v = virtual.get(resolve(name));
      return v ? ts.createSourceFile(name, v.text, lang, true) : getSourceFile(name, lang, onError, create);
    };
    host.fileExists = (name) => virtual.has(resolve(name)) || fileExists(name);
    host.readFile = (name) => virtual.get(resolve(name))?.text ?? readFile(name);

    const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
    const problems: string[] = [];
    for (const [name, v] of virtual) {
      const sf = program.getSourceFile(name)!;
      const diagnostics = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
      for (const d of diagnostics) {
        const at = d.start === undefined ? -1 : sf.getLineAndCharacterOfPosition(d.start).line;
        const blockLine = at >= 0 ? v.offsets[at] : -1;
        const where = blockLine >= 0 ? `${v.block.file}:${v.block.line + blockLine}` : `${v.block.file}:${v.block.line}`;
        problems.push(`${where} (ts block ${v.block.index}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
      }
    }
    if (problems.length > 0) console.error(`${problems.length} problem(s) in the docs' ts blocks:\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
  }, 300_000);
});
