// Copies the repository's guides (docs/*.md) into a lib's docs/ before it is packed: the packages' READMEs
// point there, and a reader of node_modules has no repository beside it. The copy is git-ignored and remade at each pack.
// Usage (a prepack script): node ../../scripts/pack-docs.js <libDir>
// It reports on stderr: as a prepack script its stdout would land in `npm pack --json`'s output.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// Every guide: they link to one another (benchmarks.md and spec-checklist.md among them).
const LEFT_OUT = new Set([]);
const root = path.join(__dirname, '..');
const from = path.join(root, 'docs');
const lib = path.resolve(process.argv[2] ?? '.');
const into = path.join(lib, 'docs');
fs.rmSync(into, { recursive: true, force: true });
fs.mkdirSync(into, { recursive: true });
const copied = fs.readdirSync(from).filter((f) => f.endsWith('.md') && !LEFT_OUT.has(f));
for (const f of copied) fs.writeFileSync(path.join(into, f), relink(fs.readFileSync(path.join(from, f), 'utf8')));

/**
 * The guides link to files beside docs/ in the repository (../libs/syncom/src/..., ../bench/, ../README.md), which
 * are not at those paths in a package. A file of a lib becomes a link into its package (src/ ships): this package's
 * own, or the other's installed beside it in node_modules (syncom is syncom-nest's peer). Anything else (the bench,
 * the repository's README, which the package's own README is not) keeps its words and names the repository's path.
 */
function relink(text) {
  return text.replace(/(!?)\[([^\]]*)\]\(\.\.\/([^)#\s]+)(#[^)\s]*)?\)/g, (whole, bang, label, target, hash = '') => {
    const m = /^libs\/([^/]+)\/(.+)$/.exec(target);
    if (m && fs.existsSync(path.join(root, 'libs', m[1], m[2]))) {
      const name = JSON.parse(fs.readFileSync(path.join(root, 'libs', m[1], 'package.json'), 'utf8')).name;
      const own = path.resolve(root, 'libs', m[1]) === lib;
      return `${bang}[${label}](${own ? '..' : `../../${name}`}/${m[2]}${hash})`;
    }
    return label === target ? `${target}${hash} in the syncom repository` : `${label} (the syncom repository's ${target}${hash})`;
  });
}

process.stderr.write(`pack-docs: ${copied.length} guides into ${into}\n`);
