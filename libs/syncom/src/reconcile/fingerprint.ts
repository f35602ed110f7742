import { platform } from '../platform';
import type { ReconcileItem } from './types';

/** An item's SHA-256, 32 bytes (a Buffer in Node). */
export type ItemHash = Uint8Array;

/** 32-bit limbs of a 256-bit sum. */
const LIMBS = 8;
/** Bytes of a tag and of a fingerprint: 128 bits, base64url (22 characters). */
const SHORT = 16;

/**
 * The SHA-256 of an item. The preimage is `ts:digestLength:digest` then the
 * id, all as UTF-16 code units: unambiguous for any strings, lone surrogates
 * included (UTF-8 would fold them all into U+FFFD).
 */
export function hashItem(item: ReconcileItem): ItemHash {
  const text = `${item.ts}:${item.digest.length}:${item.digest}${item.id}`;
  return platform().sha256Utf16(text);
}

/** The little-endian 32-bit word of `b` at byte `o`. */
const word = (b: Uint8Array, o: number): number => (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;

/** An item's tag on the wire: the first 128 bits of its hash, so equal tags mean equal (ts, id, digest). */
export function tagOfHash(hash: ItemHash): string {
  return platform().base64url(hash.subarray(0, SHORT));
}

/** 32-bit limbs of one row of sums: a 256-bit number, least significant limb first. */
export const ROW = LIMBS;

/** out[o..] = a[ao..] + b[bo..] mod 2^256 (rows of LIMBS limbs). */
export function addRow(out: Uint32Array, o: number, a: Uint32Array, ao: number, b: Uint32Array, bo: number): void {
  let carry = 0;
  for (let l = 0; l < LIMBS; l++) {
    const s = a[ao + l] + b[bo + l] + carry;
    out[o + l] = s >>> 0;
    carry = s > 0xffffffff ? 1 : 0;
  }
}

/** out[o..] = a[ao..] - b[bo..] mod 2^256 (rows of LIMBS limbs). */
export function subRow(out: Uint32Array, o: number, a: Uint32Array, ao: number, b: Uint32Array, bo: number): void {
  let borrow = 0;
  for (let l = 0; l < LIMBS; l++) {
    const d = a[ao + l] - b[bo + l] - borrow;
    out[o + l] = d >>> 0;
    borrow = d < 0 ? 1 : 0;
  }
}

/** out[o..] = a[ao..] + hash mod 2^256: a hash added without making a row of it first. */
export function addHash(out: Uint32Array, o: number, a: Uint32Array, ao: number, hash: ItemHash): void {
  let carry = 0;
  for (let l = 0; l < LIMBS; l++) {
    const s = a[ao + l] + word(hash, l * 4) + carry;
    out[o + l] = s >>> 0;
    carry = s > 0xffffffff ? 1 : 0;
  }
}

/** A hash as one row of limbs. */
export function rowOf(hash: ItemHash): Uint32Array {
  const row = new Uint32Array(LIMBS);
  for (let l = 0; l < LIMBS; l++) row[l] = word(hash, l * 4);
  return row;
}

/**
 * Prefix sums of item hashes mod 2^256, little-endian 32-bit limbs: row k
 * holds the sum of the first k hashes. Addition is what makes fingerprints
 * incremental: any range's sum is one subtraction of two rows.
 */
export function prefixSums(hashes: readonly ItemHash[]): Uint32Array {
  const sums = new Uint32Array((hashes.length + 1) * LIMBS);
  for (let k = 0; k < hashes.length; k++) addHash(sums, (k + 1) * LIMBS, sums, k * LIMBS, hashes[k]);
  return sums;
}

/** A row of limbs as 32 little-endian bytes. */
export function rowBytes(row: Uint32Array, o = 0): Uint8Array {
  const out = new Uint8Array(LIMBS * 4);
  for (let l = 0; l < LIMBS; l++) writeWord(out, l * 4, row[o + l]);
  return out;
}

/** The sum of hashes i..j-1 mod 2^256, as 32 little-endian bytes. */
export function rangeSum(sums: Uint32Array, i: number, j: number): Uint8Array {
  const out = new Uint32Array(LIMBS);
  subRow(out, 0, sums, j * LIMBS, sums, i * LIMBS);
  return rowBytes(out);
}

/**
 * A range's fingerprint: SHA-256 over the sum and the count, cut to 128 bits.
 * Hashing the sum keeps the additive structure off the wire; the count tells
 * apart sets whose sums meet by accident of arithmetic.
 */
export function fingerprintOf(sum: Uint8Array, count: number): string {
  const data = new Uint8Array(sum.length + 8);
  data.set(sum);
  writeWord(data, sum.length, count >>> 0);
  writeWord(data, sum.length + 4, Math.floor(count / 2 ** 32) >>> 0);
  const p = platform();
  return p.base64url(p.sha256Bytes(data).subarray(0, SHORT));
}

/** Write a 32-bit word little-endian at byte `o`. */
function writeWord(out: Uint8Array, o: number, v: number): void {
  out[o] = v & 0xff;
  out[o + 1] = (v >>> 8) & 0xff;
  out[o + 2] = (v >>> 16) & 0xff;
  out[o + 3] = v >>> 24;
}
