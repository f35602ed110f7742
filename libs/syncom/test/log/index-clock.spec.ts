import { createMemoryBackend, open, type SyncomError } from '../../src';
import type { Op } from '../../src/op/types';

/**
 * log/index.json carries no checksum, and its clock was taken as it read.
 * One digit rotted there (the JSON still valid) was not noticed, and moved
 * the node's clock ahead: its stamps won every register and peers refused
 * its ops as SKEW. A clock further ahead than maxSkew and than every op the
 * log holds is reported, and the newest held stamp taken.
 */

const INDEX = 'log/index.json';

/** A closed store with two own writes sealed; returns the backend and the node id. */
async function store(): Promise<{ backend: ReturnType<typeof createMemoryBackend>; id: string }> {
  const backend = createMemoryBackend();
  const s = await open({ path: 's', backend });
  await s.insert({ n: 1 });
  await s.insert({ n: 2 });
  await s.close();
  return { backend, id: s.id };
}

/** Edit index.json, reopen, make one write; what open() reported and the op it made. */
async function afterEdit(backend: ReturnType<typeof createMemoryBackend>, edit: (index: Record<string, any>) => void) {
  const index = JSON.parse((await backend.read(INDEX)) as string) as Record<string, any>;
  edit(index);
  await backend.write(INDEX, JSON.stringify(index));
  let s;
  try {
    s = await open({ path: 's', backend });
  } catch (e) {
    return { refused: e as SyncomError };
  }
  const seen: SyncomError[] = [...s.startupErrors];
  s.on('error', (e) => seen.push(e));
  let op: Op | undefined;
  s.on('change', (o) => { op = o; });
  await s.insert({ n: 3 });
  await s.close();
  return { seen, op: op as Op };
}

describe('log/index.json whose clock rotted, the JSON still valid', () => {
  it('LOG-5 CLK-8: its clock (ts) moved a century ahead of every stamp the log holds: reported or refused, and the next own stamp is not from the future', async () => {
    const { backend } = await store();
    const r = await afterEdit(backend, (index) => { index.ts += 100 * 365 * 86_400_000; });
    if ('refused' in r) return expect(r.refused).toMatchObject({ code: 'STORE_DAMAGED', file: INDEX });
    expect(r.seen).toContainEqual(expect.objectContaining({ file: INDEX }));
    expect(r.op.ts).toBeLessThan(Date.now() + 86_400_000);
  });
});
