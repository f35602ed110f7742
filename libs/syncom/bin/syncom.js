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
// pull dials a hub over socket.io, which the engine itself never imports
// (its src/ stays transport-free): the socket.io link comes from syncom-nest
// when it is installed beside syncom (loaded for pull only: it pulls in Nest);
// without it, pull says so.
function socketIoConnect() {
  try {
    return require('syncom-nest').socketIoConnect();
  } catch {
    return undefined;
  }
}
cli.main({ connect: process.argv.includes('pull') ? socketIoConnect() : undefined });
