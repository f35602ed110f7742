// Runs the apps from TypeScript sources: ts-node (transpile only) plus a
// resolver that maps the workspace libs to their src/, so `npm start`, the
// demo and the e2e child processes need no build step and never run stale dist/.
const Module = require('node:module');
const path = require('node:path');

require('ts-node').register({ transpileOnly: true, project: path.join(__dirname, '..', 'tsconfig.json') });

const libs = {
  syncom: path.join(__dirname, '..', 'libs', 'syncom', 'src', 'index.ts'),
  'syncom/testing': path.join(__dirname, '..', 'libs', 'syncom', 'src', 'testing', 'index.ts'),
  'syncom/socket.io': path.join(__dirname, '..', 'libs', 'syncom', 'src', 'socket.io', 'index.ts'),
  'syncom-nest': path.join(__dirname, '..', 'libs', 'syncom-nest', 'src', 'index.ts'),
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, libs[request] ?? request, ...rest);
};
