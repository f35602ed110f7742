// Marks a lib's ES module build (dist/esm) as ES modules for tools that read package.json "type" (bundlers that
// honour the `browser` export condition load it; Node never does). Usage: node scripts/esm-marker.js <dir>
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(process.argv[2] ?? 'dist/esm');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
