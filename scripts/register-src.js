// Runs the apps from TypeScript sources: swc transpiles each .ts file as it is
// required (the options in .swcrc, jest's too), and a resolver maps the
// workspace libs to their src/, so `npm run start:dev`, the demo and the e2e
// child processes need no build step and never run stale dist/. swc rather
// than ts-node: ts-node loads the TypeScript compiler into every process and
// transpiles with it, seconds of CPU before a hub listens (docs/testing.md).
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.join(__dirname, '..');
const options = { ...JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8')), swcrc: false, configFile: false };

// Stack traces name the .ts lines: each file carries its inline source map.
process.setSourceMapsEnabled(true);
require.extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};

const libs = {
  syncom: path.join(root, 'libs', 'syncom', 'src', 'index.ts'),
  'syncom/testing': path.join(root, 'libs', 'syncom', 'src', 'testing', 'index.ts'),
  'syncom/socket.io': path.join(root, 'libs', 'syncom', 'src', 'socket.io', 'index.ts'),
  'syncom-nest': path.join(root, 'libs', 'syncom-nest', 'src', 'index.ts'),
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, libs[request] ?? request, ...rest);
};
