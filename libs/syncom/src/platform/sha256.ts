/**
 * SHA-256 (FIPS 180-4) for the browser's platform, which needs it
 * synchronously (subtle.digest is async). A compact form in place of
 * @noble/hashes, whose generic hash classes weighed about 1.5 KB of the
 * browser bundle gzipped: the same digests (the tests hold it to Node's).
 */

/** The first 32 bits of the fractional part of `x`. */
const frac = (x: number): number => ((x - Math.floor(x)) * 2 ** 32) | 0;

/**
 * The initial hash (square roots of the first 8 primes) and the round
 * constants (cube roots of the first 64), computed rather than listed: each
 * lies far enough from a 32-bit boundary (a test checks) that a cube root a
 * few ulps off, as engines may compute it, truncates to the same value.
 */
const IV: number[] = [];
const K = new Int32Array(64);
for (let n = 2, i = 0; i < 64; n++) {
  let d = 2;
  while (d * d <= n && n % d) d++;
  if (d * d <= n) continue;
  if (i < 8) IV.push(frac(Math.sqrt(n)));
  K[i++] = frac(Math.cbrt(n));
}

/** The message schedule, shared: a block is compressed synchronously, start to end. */
const W = new Int32Array(64);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

function put32(out: Uint8Array, at: number, v: number): void {
  out[at] = v >>> 24;
  out[at + 1] = v >>> 16;
  out[at + 2] = v >>> 8;
  out[at + 3] = v;
}

/** An incremental SHA-256: update() with the message's bytes, in any cuts, then digest() once. */
export class Sha256 {
  private readonly h = Int32Array.from(IV);
  private readonly block = new Uint8Array(64);
  private fill = 0;
  private length = 0;

  update(data: Uint8Array): this {
    const n = data.length;
    let i = 0;
    this.length += n;
    if (this.fill > 0) {
      i = Math.min(64 - this.fill, n);
      this.block.set(data.subarray(0, i), this.fill);
      this.fill += i;
      if (this.fill < 64) return this;
      this.compress(this.block, 0);
      this.fill = 0;
    }
    for (; i + 64 <= n; i += 64) this.compress(data, i);
    this.block.set(data.subarray(i), 0);
    this.fill = n - i;
    return this;
  }

  digest(): Uint8Array {
    const { block } = this;
    let f = this.fill;
    block[f++] = 0x80;
    if (f > 56) {
      block.fill(0, f);
      this.compress(block, 0);
      f = 0;
    }
    block.fill(0, f, 56);
    const bits = this.length * 8;
    put32(block, 56, Math.floor(bits / 2 ** 32));
    put32(block, 60, bits);
    this.compress(block, 0);
    const out = new Uint8Array(32);
    for (let j = 0; j < 8; j++) put32(out, j * 4, this.h[j]);
    return out;
  }

  private compress(b: Uint8Array, at: number): void {
    const { h } = this;
    for (let t = 0; t < 16; t++, at += 4) W[t] = (b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3];
    for (let t = 16; t < 64; t++) {
      const x = W[t - 15];
      const y = W[t - 2];
      W[t] = (W[t - 16] + (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) + W[t - 7] + (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10))) | 0;
    }
    let a = h[0], b1 = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (let t = 0; t < 64; t++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b1) ^ (a & c) ^ (b1 & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b1;
      b1 = a;
      a = (t1 + t2) | 0;
    }
    h[0] += a;
    h[1] += b1;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
  }
}

/** The SHA-256 digest of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  return new Sha256().update(data).digest();
}
