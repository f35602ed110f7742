// Copies the repository's guides (docs/*.md) into a lib's docs/ before it is packed: the packages' READMEs
// point there, and a reader of node_modules has no repository beside it. The copy is git-ignored and remade at each pack.
// Usage (a prepack script): node ../../scripts/pack-docs.js <libDir>
// It reports on stderr: as a prepack script its stdout would land in `npm pack --json`'s output.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// Every guide: they link to one another (benchmarks.md and spec-checklist.md among them).
const LEFT_OUT = new Set([]);
const from = path.join(__dirname, '..', 'docs');
const into = path.join(path.resolve(process.argv[2] ?? '.'), 'docs');
fs.rmSync(into, { recursive: true, force: true });
fs.mkdirSync(into, { recursive: true });
const copied = fs.readdirSync(from).filter((f) => f.endsWith('.md') && !LEFT_OUT.has(f));
for (const f of copied) fs.copyFileSync(path.join(from, f), path.join(into, f));
process.stderr.write(`pack-docs: ${copied.length} guides into ${into}\n`);
