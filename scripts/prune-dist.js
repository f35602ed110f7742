// Removes from libs/*/dist the outputs whose source is gone. tsc -b never deletes
// the outputs of a moved or deleted source, and `files: ["dist"]` would ship them
// (with source maps naming sources that are not there). Only stale files are
// touched, so a build running beside tests that read dist/ is safe.
// Usage: node scripts/prune-dist.js [libDir ...] (relative to the working directory; default: both libs).
// It reports on stderr: as a prepack script its stdout would land in `npm pack --json`'s output.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const OUTPUT = /(\.d\.ts|\.js\.map|\.d\.ts\.map|\.js)$/;

/** Every file under `dir`, recursively. */
function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}

function prune(lib) {
  const dist = path.join(lib, 'dist');
  if (!fs.existsSync(dist)) return 0;
  let removed = 0;
  for (const file of walk(dist)) {
    const match = OUTPUT.exec(file);
    if (!match) continue;
    // dist/esm (the ES module build) mirrors src as dist itself does.
    const rel = path.relative(dist, file.slice(0, -match[1].length));
    const inEsm = rel.startsWith(`esm${path.sep}`);
    const source = path.join(lib, 'src', inEsm ? path.relative('esm', rel) : rel) + '.ts';
    if (!fs.existsSync(source)) {
      fs.rmSync(file);
      removed++;
    }
  }
  return removed;
}

const root = path.join(__dirname, '..');
const libs = process.argv.length > 2 ? process.argv.slice(2).map((l) => path.resolve(l)) : ['libs/syncom', 'libs/syncom-nest'].map((l) => path.join(root, l));
for (const lib of libs) {
  const removed = prune(lib);
  if (removed > 0) console.error(`prune-dist: ${removed} stale files removed from ${lib}/dist`);
}
