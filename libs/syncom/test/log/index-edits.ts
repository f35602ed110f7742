import { createMemoryBackend, open, type SyncomError } from '../../src';
import type { OpenOptions } from '../../src/storage/options';
import type { Op } from '../../src/op/types';

/** Helpers of the tests that change log/index.json by hand, its JSON still valid (a rotted digit, an odd key). */

export const INDEX = 'log/index.json';
export type Backend = ReturnType<typeof createMemoryBackend>;

/** A closed store with two own writes sealed; returns the backend and the node id. */
export async function store(): Promise<{ backend: Backend; id: string }> {
  const backend = createMemoryBackend();
  const s = await open({ path: 's', backend });
  await s.insert({ n: 1 });
  await s.insert({ n: 2 });
  await s.close();
  return { backend, id: s.id };
}

/**
 * Edit index.json, reopen, make one write: what open() reported (or its
 * refusal), the op it made, the vector after it, and index.json's vector
 * once closed.
 */
export async function afterEdit(backend: Backend, edit: (index: Record<string, any>) => void, options: Partial<OpenOptions> = {}) {
  const index = JSON.parse((await backend.read(INDEX)) as string) as Record<string, any>;
  edit(index);
  await backend.write(INDEX, JSON.stringify(index));
  let s;
  try {
    s = await open({ ...options, path: 's', backend });
  } catch (e) {
    return { refused: e as SyncomError };
  }
  const seen: SyncomError[] = [...s.startupErrors];
  s.on('error', (e) => seen.push(e));
  let op: Op | undefined;
  s.on('change', (o) => { op = o; });
  await s.insert({ n: 3 });
  const vector = { ...s.replica.vector };
  await s.close();
  const after = JSON.parse((await backend.read(INDEX)) as string) as { vector: Record<string, number> };
  return { seen, op: op as Op, vector, index: after.vector };
}
