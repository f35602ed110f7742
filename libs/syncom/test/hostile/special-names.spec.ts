import { createMemoryBackend, createMemoryLink, open, type Storage, type SyncomError } from '../../src';
import { checkHelloAnswer } from '../../src/sync/protocol/hello';
import { type Backend, INDEX, store } from '../log/index-edits';

/**
 * Names of Object.prototype's members (`__proto__`, `constructor`,
 * `toString`, ...) where a file or a peer puts a key: JSON.parse makes each
 * an own key, and a read of an object used as a map must not find the
 * prototype's member in its place.
 */

/** index.json's vector with one more entry, as the file's text (JSON.parse makes `__proto__` an own key). */
async function addIndexKey(backend: Backend, key: string, n: number): Promise<void> {
  const text = (await backend.read(INDEX)) as string;
  await backend.write(INDEX, text.replace('"vector":{', `"vector":{${JSON.stringify(key)}:${n},`));
}

/** Open, write once, close: what open() reported, the live vector's value types, and index.json's vector after. */
async function session(backend: Backend) {
  const s = await open({ path: 's', backend });
  const reported = s.startupErrors.map((e) => [e.code, (e as SyncomError & { file?: string }).file]);
  await s.insert({ n: 3 });
  const types = Object.entries(s.replica.vector).map(([k, v]) => [k, typeof v]);
  await s.close();
  return { reported, types, index: (JSON.parse((await backend.read(INDEX)) as string) as { vector: object }).vector };
}

describe('special property names as keys', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'LOG-5: an index.json vector key %s no op can make is reported and dropped; the store opens again after', async (key) => {
      const { backend, id } = await store();
      await addIndexKey(backend, key, 5);
      const first = await session(backend);
      expect(first.reported).toEqual([['OP_UNREADABLE', INDEX]]);
      // Read through Object.prototype the key was a function (an object for __proto__), kept as the log's count:
      // written back as {} it made the next open refuse the store as damaged.
      expect(first.types).toEqual([[id, 'number']]);
      expect(first.index).toEqual({ [id]: 3 });
      const second = await session(backend);
      expect(second.reported).toEqual([]);
      expect(second.index).toEqual({ [id]: 4 });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

  it('LOG-5: past the floor, an index.json vector key __proto__ is dropped too: a hello answer holding it is no vector to any dialer', async () => {
    const backend = createMemoryBackend();
    const options = { path: 's', backend, sync: { retention: { ops: 1000 }, log: { rollAfter: 2 } } };
    let h: Storage = await open(options);
    for (let round = 0; round < 12; round++) await Promise.all(Array.from({ length: 100 }, (_, i) => h.insert({ round, i })));
    await h.close();
    expect((JSON.parse((await backend.read(INDEX)) as string) as { floor: number }).floor).toBeGreaterThan(0);
    await addIndexKey(backend, '__proto__', 5);
    h = await open(options);
    expect(Object.hasOwn(h.replica.vector, '__proto__')).toBe(false);
    const link = createMemoryLink(h.sync.unit({ access: 'public' }));
    const answer = await link.call('hello', { node: 'dialer', vector: {}, epoch: 'e', schema: null });
    expect(() => checkHelloAnswer(answer)).not.toThrow();
    link.close();
    await h.close();
  });
});
