// Finishes a lib's ES module build (dist/esm), which bundlers load through the `browser` export condition
// (Node never does): every relative import gets the file it names (`./x` -> `./x.js`, `./dir` ->
// `./dir/index.js`), as ES modules want and webpack 5 insists on once the folder is marked
// `"type": "module"`; then that marker is written. tsc leaves the specifiers as written.
// Usage: node scripts/esm-marker.js <dir>
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(process.argv[2] ?? 'dist/esm');
if (!fs.existsSync(path.join(dir, 'browser.js'))) {
  process.stderr.write(`esm-marker: no ${dir}/browser.js: the ES module build wrote nothing\n`);
  process.exit(1);
}

/** Every .js file under `d`. */
function* walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const full = path.join(d, e.name);
    if (e.isDirectory()) yield* walk(full);
    else if (e.name.endsWith('.js')) yield full;
  }
}

/** `spec` (relative, from the file at `from`) with the file it names. */
function fullySpecified(from, spec) {
  if (/\.(m?js|json)$/.test(spec)) return spec;
  const at = path.resolve(path.dirname(from), spec);
  if (fs.existsSync(`${at}.js`)) return `${spec}.js`;
  if (fs.existsSync(path.join(at, 'index.js'))) return `${spec}/index.js`;
  throw new Error(`esm-marker: ${from} imports ${spec}, which names no file`);
}

const RELATIVE = /(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]*)\2/g;
for (const file of walk(dir)) {
  const text = fs.readFileSync(file, 'utf8');
  const fixed = text.replace(RELATIVE, (_m, head, q, spec) => `${head}${q}${fullySpecified(file, spec)}${q}`);
  if (fixed !== text) fs.writeFileSync(file, fixed);
}
fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
