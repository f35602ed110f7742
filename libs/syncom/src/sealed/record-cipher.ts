import type { KeyObject } from 'node:crypto';
import type { SealingKeys } from '../platform';
import { type Entry, entriesText, entryText } from '../crdt';
import type { RecordCipher } from '../storage/records';
import { BoxOpener, BoxSealer } from './box';

/** A sealed record as a record file holds it: the id in clear, the whole entry boxed. */
interface SealedRecord {
  id: string;
  sealed: string;
}

const isSealedRecord = (x: unknown): x is SealedRecord =>
  typeof x === 'object' && x !== null && typeof (x as SealedRecord).id === 'string' && typeof (x as SealedRecord).sealed === 'string';

/**
 * The record files' cipher (GUAR-19): the entry of a sealed id — fields,
 * stamps, tombstone or purge marker alike — is written as `{ id, sealed }`,
 * a box bound to the id, one content key per call (a record file's large
 * entries take one, the others another). With no sealed id
 * in the file it is the plain JSON text, at the cost of one set lookup per entry.
 *
 * @example
 * RecordStore.load({ backend, durable, onError, cipher: createRecordCipher(keys, (id) => sealed.has(id)) });
 */
export function createRecordCipher(keys: SealingKeys, isSealed: (id: string) => boolean): RecordCipher {
  const opener = new BoxOpener(keys.sealPrivate as KeyObject);
  return {
    text(entries: readonly Entry[]): string {
      if (!entries.some((e) => isSealed(e.id))) return entriesText(entries);
      return `[${this.texts(entries).join(',')}]`;
    },
    texts(entries: readonly Entry[]): string[] {
      let sealer: BoxSealer | undefined;
      return entries.map((e) => (isSealed(e.id) ? JSON.stringify({ id: e.id, sealed: (sealer ??= new BoxSealer(keys.sealPublic as KeyObject)).seal(entryText(e), e.id) }) : entryText(e)));
    },
    open(x: unknown) {
      if (!isSealedRecord(x)) return { entry: x, sealed: false };
      const text = opener.open(x.sealed, x.id);
      return text === undefined ? undefined : { entry: JSON.parse(text) as unknown, sealed: true };
    },
  };
}
