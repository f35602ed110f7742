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
// pull dials a hub over socket.io, which the engine's core never imports (its
// src/ stays transport-free): the link is the engine's own socket.io entry, and
// the socket comes from socket.io-client when it is installed beside syncom;
// without it, pull says so. Loaded for pull only.
function socketIoConnect() {
  try {
    const { io } = require('socket.io-client');
    const { createSocketIoLink } = require('../dist/socket.io/index.js');
    // A host's frame bounded at 16 MiB (ws takes 100 MiB by default, eleven frames to an answer).
    return (node) => createSocketIoLink(io(node.url, { transports: ['websocket'], transportOptions: { websocket: { maxPayload: 16 * 2 ** 20 } }, auth: { token: node.token } }));
  } catch {
    return undefined;
  }
}
cli.main({ connect: process.argv.includes('pull') ? socketIoConnect() : undefined });
