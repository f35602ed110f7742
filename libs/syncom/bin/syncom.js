#!/usr/bin/env node
// The `syncom` command (npx syncom): a plain-JS launcher kept in git, not built.
// npm links a package's bins when it installs it, before the root `prepare`
// has built dist/, and skips a bin whose file is not there yet; this file is
// always there. The CLI itself is src/cli/main.ts, built to dist/cli/main.js.
'use strict';

let cli;
try {
  cli = require('../dist/cli/main.js');
} catch (e) {
  if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('main.js')) {
    process.stderr.write('syncom: the CLI is not built; run `npm run build` at the repository root\n');
    process.exit(2);
  }
  throw e;
}
cli.main();
