import * as crypto from 'node:crypto';
import type { ReconcileItem } from './types';

/** SHA-256 of bytes: crypto.hash, one call and about twice as fast, where Node has it (20.12+). */
const sha256: (data: Buffer) => Buffer = typeof crypto.hash === 'function'
  ? (data) => crypto.hash('sha256', data, 'buffer')
  : (data) => crypto.createHash('sha256').update(data).digest();

/** 32-bit limbs of a 256-bit sum. */
const LIMBS = 8;
/** Bytes of a tag and of a fingerprint: 128 bits, base64url (22 characters). */
const SHORT = 16;

/**
 * The SHA-256 of an item. The preimage is `ts:digestLength:digest` then the
 * id, all as UTF-16 code units: unambiguous for any strings, lone surrogates
 * included (UTF-8 would fold them all into U+FFFD).
 */
export function hashItem(item: ReconcileItem): Buffer {
  const text = `${item.ts}:${item.digest.length}:${item.digest}${item.id}`;
  return sha256(Buffer.from(text, 'utf16le'));
}

/** An item's tag on the wire: the first 128 bits of its hash, so equal tags mean equal (ts, id, digest). */
export function tagOfHash(hash: Buffer): string {
  return hash.subarray(0, SHORT).toString('base64url');
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
export function addHash(out: Uint32Array, o: number, a: Uint32Array, ao: number, hash: Buffer): void {
  let carry = 0;
  for (let l = 0; l < LIMBS; l++) {
    const s = a[ao + l] + hash.readUInt32LE(l * 4) + carry;
    out[o + l] = s >>> 0;
    carry = s > 0xffffffff ? 1 : 0;
  }
}

/** A hash as one row of limbs. */
export function rowOf(hash: Buffer): Uint32Array {
  const row = new Uint32Array(LIMBS);
  for (let l = 0; l < LIMBS; l++) row[l] = hash.readUInt32LE(l * 4);
  return row;
}

/**
 * Prefix sums of item hashes mod 2^256, little-endian 32-bit limbs: row k
 * holds the sum of the first k hashes. Addition is what makes fingerprints
 * incremental: any range's sum is one subtraction of two rows.
 */
export function prefixSums(hashes: readonly Buffer[]): Uint32Array {
  const sums = new Uint32Array((hashes.length + 1) * LIMBS);
  for (let k = 0; k < hashes.length; k++) addHash(sums, (k + 1) * LIMBS, sums, k * LIMBS, hashes[k]);
  return sums;
}

/** A row of limbs as 32 little-endian bytes. */
export function rowBytes(row: Uint32Array, o = 0): Buffer {
  const out = Buffer.alloc(LIMBS * 4);
  for (let l = 0; l < LIMBS; l++) out.writeUInt32LE(row[o + l], l * 4);
  return out;
}

/** The sum of hashes i..j-1 mod 2^256, as 32 little-endian bytes. */
export function rangeSum(sums: Uint32Array, i: number, j: number): Buffer {
  const out = new Uint32Array(LIMBS);
  subRow(out, 0, sums, j * LIMBS, sums, i * LIMBS);
  return rowBytes(out);
}

/**
 * A range's fingerprint: SHA-256 over the sum and the count, cut to 128 bits.
 * Hashing the sum keeps the additive structure off the wire; the count tells
 * apart sets whose sums meet by accident of arithmetic.
 */
export function fingerprintOf(sum: Buffer, count: number): string {
  const n = Buffer.alloc(8);
  n.writeUInt32LE(count >>> 0, 0);
  n.writeUInt32LE(Math.floor(count / 2 ** 32), 4);
  return sha256(Buffer.concat([sum, n])).subarray(0, SHORT).toString('base64url');
}
