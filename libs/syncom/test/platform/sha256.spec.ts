import { createHash } from 'node:crypto';
import { sha256, Sha256 } from '../../src/platform/sha256';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (n: number): Uint8Array => new Uint8Array(n).map((_, i) => (i * 131 + n) & 255);

describe("the browser platform's SHA-256 (platform/sha256.ts)", () => {
  it("gives Node's digest for every length across the padding's block boundaries, whole and in cuts", () => {
    for (let n = 0; n < 200; n++) {
      const data = bytes(n);
      const want = createHash('sha256').update(data).digest('hex');
      expect(hex(sha256(data))).toBe(want);
      const h = new Sha256();
      for (let i = 0; i < n; i += 7) h.update(data.subarray(i, i + 7));
      expect(hex(h.digest())).toBe(want);
    }
    const big = bytes(70_000);
    expect(hex(sha256(big))).toBe(createHash('sha256').update(big).digest('hex'));
    expect(hex(sha256(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('its round constants hold where a cube root a few ulps off would land: each far from a 32-bit boundary', () => {
    const primes: number[] = [];
    for (let n = 2; primes.length < 64; n++) if (primes.every((p) => n % p)) primes.push(n);
    for (const p of primes) {
      const scaled = (Math.cbrt(p) % 1) * 2 ** 32;
      // An ulp of a cube root below 8, scaled by 2^32, is under 4e-6.
      expect(Math.min(scaled % 1, 1 - (scaled % 1))).toBeGreaterThan(1e-4);
    }
  });
});
