import { SyncomError } from '../errors';
import { entriesText, entryText } from '../crdt';
import type { EntryCipher } from '../log/files';
import { FLAG_SEALED, FLAGS_SLOT, ID_SLOT, PACKED_LENGTH } from '../op/pack';
import { platform, type SealingKeys } from '../platform';
import type { RecordCipher } from '../storage/records';

/**
 * Sealed records through the platform (GUAR-19). Node's ciphers (log-cipher.ts,
 * record-cipher.ts over node:crypto) come with Node's platform; this file
 * imports neither, so the browser's open() does not load them. Where the
 * platform has no sealing, nothing sealed is written (UNSUPPORTED) and
 * sealed entries of a store made elsewhere read as unreadable.
 */


const unsupported = () =>
  new SyncomError('UNSUPPORTED', 'sealed records need Node.js; write without { sealed: true }');

const isSealedPack = (p: unknown): boolean =>
  Array.isArray(p) && Number.isSafeInteger(p[FLAGS_SLOT]) && ((p[FLAGS_SLOT] as number) & FLAG_SEALED) !== 0;

/**
 * The log's cipher for sealed entries: the platform's, or one that refuses to
 * seal. `unopened` hears the id (in clear in the header) of each sealed entry
 * that does not open: its record is lost, its seal must not be, or the id's
 * next write would go out in clear.
 */
export function createLogCipher(keys: SealingKeys, unopened?: (id: string) => void): EntryCipher {
  const sealing = platform().sealing;
  const cipher: EntryCipher = sealing ? sealing.createLogCipher(keys) : {
    seal(packed) {
      if (packed.some(isSealedPack)) throw unsupported();
      return [...packed];
    },
    open: (packed) => (isSealedPack(packed) && (packed as unknown[]).length > PACKED_LENGTH ? undefined : packed),
  };
  if (!unopened) return cipher;
  return {
    seal: (packed) => cipher.seal(packed),
    open(packed) {
      const out = cipher.open(packed);
      const id = (packed as unknown[])[ID_SLOT];
      if (out === undefined && isSealedPack(packed) && typeof id === 'string') unopened(id);
      return out;
    },
  };
}

const isBoxed = (x: unknown): boolean => typeof x === 'object' && x !== null && typeof (x as { sealed?: unknown }).sealed === 'string';

/** The record files' cipher: the platform's, or one that refuses to seal. */
export function createRecordCipher(keys: SealingKeys, isSealed: (id: string) => boolean): RecordCipher {
  const sealing = platform().sealing;
  if (sealing) return sealing.createRecordCipher(keys, isSealed);
  return {
    text(entries) {
      if (entries.some((e) => isSealed(e.id))) throw unsupported();
      return entriesText(entries);
    },
    texts(entries) {
      if (entries.some((e) => isSealed(e.id))) throw unsupported();
      return entries.map(entryText);
    },
    open: (x) => (isBoxed(x) ? undefined : { entry: x, sealed: false }),
  };
}
