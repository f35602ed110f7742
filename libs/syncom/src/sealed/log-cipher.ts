import type { KeyObject } from 'node:crypto';
import type { SealingKeys } from '../platform';
import type { EntryCipher } from '../log/files';
import { FLAG_SEALED, FLAGS_SLOT, PACKED_LENGTH } from '../op/pack';
import { BoxOpener, BoxSealer } from './box';

// Slots of a packed op (op/pack.ts): 0-8 the header, 9-13 the payload, 14 the log's flags, 15-17 sig, digest, nonce.
const HEADER_SLOTS = 9;
// The payload and the signature fields: with the nonce in clear, a digest could be brute-forced over a small value.
const SECRET_SLOTS = [9, 10, 11, 12, 13, 15, 16, 17] as const;

const isSealedPack = (p: unknown, length: number): p is unknown[] =>
  Array.isArray(p) && p.length === length && Number.isSafeInteger(p[FLAGS_SLOT]) && ((p[FLAGS_SLOT] as number) & FLAG_SEALED) !== 0;

// The box binds the header as written: a box copied onto another entry does not open.
const headerOf = (p: readonly unknown[]) => JSON.stringify(p.slice(0, HEADER_SLOTS));

/**
 * The log's cipher for sealed entries (GUAR-19). A sealed entry is written as
 * 19 slots: the header and flags in clear, the secret slots null, and slot 18
 * a box (see BoxSealer) of the secret slots' JSON. One content key per file
 * written. An 18-slot reader refuses the 19-slot form, so without the key a
 * sealed entry reads as unreadable, never as an op with an empty payload.
 *
 * @example
 * const { log } = await OpLog.open({ backend, cipher: createLogCipher(keys) });
 */
export function createLogCipher(keys: SealingKeys): EntryCipher {
  const opener = new BoxOpener(keys.sealPrivate as KeyObject);
  return {
    seal(packed) {
      let sealer: BoxSealer | undefined;
      return packed.map((p) => {
        if (!isSealedPack(p, PACKED_LENGTH)) return p;
        sealer ??= new BoxSealer(keys.sealPublic as KeyObject);
        const out = [...p];
        for (const slot of SECRET_SLOTS) out[slot] = null;
        out.push(sealer.seal(JSON.stringify(SECRET_SLOTS.map((slot) => p[slot])), headerOf(p)));
        return out;
      });
    },
    open(packed) {
      if (!isSealedPack(packed, PACKED_LENGTH + 1)) return packed;
      const text = opener.open(packed[PACKED_LENGTH], headerOf(packed));
      const secret = text === undefined ? undefined : (JSON.parse(text) as unknown);
      if (!Array.isArray(secret) || secret.length !== SECRET_SLOTS.length) return undefined;
      const out = packed.slice(0, PACKED_LENGTH);
      SECRET_SLOTS.forEach((slot, i) => (out[slot] = secret[i] as unknown));
      return out;
    },
  };
}
