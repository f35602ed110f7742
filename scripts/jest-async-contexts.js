// Jest's test framework (jest-circus 30) makes an AsyncLocalStorage for each
// test file it runs and never disables it. On Node 20 every enabled one takes
// part in every async resource made after it in that worker (each promise), so
// a worker that ran 180 files paid 180 of them for each promise of the next:
// a promise-heavy test late in a worker ran many times slower than alone
// (docs/testing.md). Before each file, the ones earlier files enabled are
// disabled; a later run() enables one again, so nothing that still uses its
// own is cut off.
const { AsyncLocalStorage } = require('node:async_hooks');

const proto = AsyncLocalStorage.prototype;
const KEY = Symbol.for('syncom.jest.asyncContexts');
if (!proto[KEY]) {
  const seen = new Set();
  proto[KEY] = seen;
  for (const name of ['run', 'enterWith']) {
    const original = proto[name];
    proto[name] = function (...args) {
      seen.add(this);
      return original.apply(this, args);
    };
  }
} else {
  const seen = proto[KEY];
  for (const storage of seen) storage.disable();
  seen.clear();
}
