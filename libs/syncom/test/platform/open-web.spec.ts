import { createMemoryBackend } from '../../src/backend/memory-backend';
import { open } from '../../src/open';
import { nodePlatform } from '../../src/platform/node';
import { web, withPlatform } from './with-platform';

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

  it('refuses a bare path with no backend (the fs backend is Node\'s) with INVALID_ARGUMENT naming opfsBackend()', async () => {
    await withPlatform(web, async () => {
      await expect(open({ path: 'db' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('opfsBackend()') });
    });
  });
});
