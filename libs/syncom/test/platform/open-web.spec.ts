import { createMemoryBackend } from '../../src/backend/memory-backend';
import { open } from '../../src/open';
import { nodePlatform } from '../../src/platform/node';
import { web, withPlatform } from './with-platform';

/**
 * Run `fn` with Web Crypto answering every Ed25519 call NotSupportedError, as
 * a browser without Ed25519 (Chrome before 137) does; the rest of crypto.subtle as it is.
 */
async function withoutEd25519<T>(fn: () => Promise<T>): Promise<T> {
  const real = globalThis.crypto.subtle;
  const isEd = (alg: unknown) => alg === 'Ed25519' || (alg as { name?: unknown } | null)?.name === 'Ed25519';
  const refuse = () => Promise.reject(new DOMException('Unrecognized name.', 'NotSupportedError'));
  const subtle = new Proxy(real, {
    get(target, prop) {
      const f = Reflect.get(target, prop) as unknown;
      if (typeof f !== 'function') return f;
      return (...args: unknown[]) => {
        if (['generateKey', 'sign', 'verify'].includes(prop as string) && isEd(args[0])) return refuse();
        if (prop === 'importKey' && isEd(args[2])) return refuse();
        return (f as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  Object.defineProperty(globalThis.crypto, 'subtle', { value: subtle, configurable: true });
  try {
    return await fn();
  } finally {
    Object.defineProperty(globalThis.crypto, 'subtle', { value: real, configurable: true });
  }
}

describe('open() on the browser platform (under Node)', () => {
  it('writes, signs and reopens a store; a store made on Node opens with the same id; a sealed write fails UNSUPPORTED', async () => {
    const backend = createMemoryBackend();
    const made = await withPlatform(web, async () => {
      const storage = await open({ path: 'db', backend });
      const id = await storage.insert({ title: 'draft' });
      await expect(storage.insert({ secret: 1 }, { sealed: true })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
      const own = storage.id;
      await storage.close();
      return { id, own };
    });
    // The same files, read on Node: the records and the node's id (its key) are the browser's.
    await withPlatform(nodePlatform, async () => {
      const storage = await open({ path: 'db', backend });
      expect(storage.id).toBe(made.own);
      expect(await storage.get(made.id)).toMatchObject({ title: 'draft' });
      await storage.close();
    });
  });

  it('a Web Crypto without Ed25519: UNSUPPORTED for a new store and for an existing one, never STORE_DAMAGED (whose remedy gives up the log), and the store opens again where Ed25519 is', async () => {
    const fresh = createMemoryBackend();
    await withPlatform(web, () => withoutEd25519(async () => {
      await expect(open({ path: 'db', backend: fresh })).rejects.toMatchObject({ code: 'UNSUPPORTED', message: expect.stringContaining('Ed25519') });
    }));
    // Made on Node: the web platform has parsed none of its keys yet (a process parses a key file once), as in a new page.
    const backend = createMemoryBackend();
    const id = await withPlatform(nodePlatform, async () => {
      const storage = await open({ path: 'db', backend });
      const made = await storage.insert({ title: 'kept' });
      await storage.close();
      return made;
    });
    await withPlatform(web, () => withoutEd25519(async () => {
      await expect(open({ path: 'db', backend })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    }));
    await withPlatform(web, async () => {
      const storage = await open({ path: 'db', backend });
      expect(await storage.get(id)).toMatchObject({ title: 'kept' });
      await storage.close();
    });
  });

  it('refuses a bare path with no backend (the fs backend is Node\'s) with INVALID_ARGUMENT naming opfsBackend()', async () => {
    await withPlatform(web, async () => {
      await expect(open({ path: 'db' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('opfsBackend()') });
    });
  });
});
