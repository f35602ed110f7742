import { type Field, keyedGet } from '../crdt';
import { partsOf, type StorageParts } from '../storage/parts';
import type { Storage } from '../storage/storage';

export type { StorageParts };

/**
 * A storage's internals (its log, committer, clock, record store), for
 * tests only: the one door to them outside storage/. Code that ships uses the
 * storage API and its replica port (`storage.replica`).
 * @throws TypeError for an object open() did not make.
 * @example
 * expect(internals(storage).log.head).toBe(3);
 */
export function internals(storage: Storage): StorageParts {
  return partsOf(storage);
}

/**
 * One field of a record's committed merge state, whichever form its map
 * holds (see crdt/keyed.ts), for tests only.
 * @example
 * expect(committedField(storage, id, 'views')?.k).toBe('c');
 */
export function committedField(storage: Storage, id: string, name: string): Field | undefined {
  const e = partsOf(storage).committer.committed.get(id);
  return e && keyedGet(e.fields, name);
}
