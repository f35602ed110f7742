import { createMemoryBackend, open } from '../../src';
import { generateSealingKeys } from '../../src/op';

/** Every records/<n>.json file of a backend, parsed. */
function recordFiles(files: Map<string, string>): { name: string; ids: string[] }[] {
  return [...files].filter(([p]) => /^(.*\/)?records\/\d+\.json$/.test(p)).map(([name, text]) => ({ name, ids: (JSON.parse(text) as { id: string }[]).map((e) => e.id) }));
}

describe('record files: merging reuses the files still current', () => {
  it('GUAR-7: after merges of files partly superseded by later writes, each file holds an id once and a reopen reads every record at its latest state', async () => {
    const k = await generateSealingKeys();
    const b = createMemoryBackend({ files: { 'keys/seal-public.pem': k.publicPem, 'keys/seal-private.pem': k.privatePem } });
    const s = await open({ path: 'merge', backend: b });
    const want = new Map<string, Record<string, unknown>>();
    // One awaited write a batch, so each makes a record file: 60 files, merged 16 at a time.
    for (let i = 0; i < 40; i++) {
      const id = await s.insert({ n: i });
      want.set(id, { n: i });
    }
    const ids = [...want.keys()];
    for (let i = 0; i < 20; i++) {
      const id = ids[(i * 7) % ids.length];
      await s.update(id, { n: 100 + i });
      want.set(id, { n: 100 + i });
    }
    await s.replica.idle();
    const files = recordFiles(b.files());
    expect(files.length).toBeLessThan(16);
    for (const f of files) expect(new Set(f.ids).size).toBe(f.ids.length);
    await s.close();
    const again = await open({ path: 'merge', backend: b.crash('none') });
    for (const [id, data] of want) expect(await again.get(id)).toMatchObject(data);
    await again.close();
  });
});
