import { createHash } from 'node:crypto';
import { nodePlatform } from '../../src/platform/node';
import { webPlatform } from '../../src/platform/web';

const hash = (data: Uint8Array | string, enc: 'hex' | 'base64url') => createHash('sha256').update(data).digest(enc);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (n: number): Uint8Array => new Uint8Array(n).map((_, i) => (i * 131 + n) & 255);
/** n characters: ASCII, two-byte, three-byte and astral ones, so a text's UTF-8 length crosses the 64-byte blocks unevenly. */
const text = (n: number): string => Array.from({ length: n }, (_, i) => ['a', 'é', '€', '😀', 'z'][(i * 7 + n) % 5]).join('');

describe("the browser platform's SHA-256 (platform/web.ts, @noble/hashes)", () => {
  it("gives node:crypto's digest of bytes for every length across the padding's block boundaries, and of a large input", () => {
    for (let n = 0; n < 200; n++) {
      const data = bytes(n);
      expect(hex(webPlatform.sha256Bytes(data))).toBe(hash(data, 'hex'));
    }
    const big = bytes(70_000);
    expect(hex(webPlatform.sha256Bytes(big))).toBe(hash(big, 'hex'));
    expect(webPlatform.sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it("hashes a text's UTF-8 (base64url and hex) and its UTF-16 code units as Node's platform does", () => {
    for (let n = 0; n < 80; n++) {
      const t = text(n);
      expect(webPlatform.sha256(t)).toBe(hash(t, 'base64url'));
      expect(webPlatform.sha256Hex(t)).toBe(hash(t, 'hex'));
      expect(hex(webPlatform.sha256Utf16(t))).toBe(hex(nodePlatform.sha256Utf16(t)));
    }
    // A lone surrogate: UTF-8 reads it as U+FFFD on both; UTF-16 keeps it apart from U+FFFD.
    for (const t of ['\ud800', 'a\udc00b', '\ufffd']) {
      expect(webPlatform.sha256(t)).toBe(nodePlatform.sha256(t));
      expect(hex(webPlatform.sha256Utf16(t))).toBe(hex(nodePlatform.sha256Utf16(t)));
    }
    expect(hex(webPlatform.sha256Utf16('\ud800'))).not.toBe(hex(webPlatform.sha256Utf16('\ufffd')));
  });

  it('hashes texts in parts as the joined text, in any cuts, incremental across block boundaries', () => {
    for (let n = 0; n < 120; n += 3) {
      const t = text(n);
      const cuts: string[] = [];
      // Cut between code points (an astral one is two code units), in pieces of 1 to 9.
      const points = Array.from(t);
      for (let i = 0, k = 1; i < points.length; i += k, k = (k % 9) + 1) cuts.push(points.slice(i, i + k).join(''));
      expect(webPlatform.sha256Parts(cuts)).toBe(hash(t, 'base64url'));
      expect(webPlatform.sha256Parts(['', t, ''])).toBe(hash(t, 'base64url'));
    }
    // A cut inside a surrogate pair encodes each half alone (U+FFFD), as Node's does.
    expect(webPlatform.sha256Parts(['a\ud83d', '\ude00b'])).toBe(nodePlatform.sha256Parts(['a\ud83d', '\ude00b']));
  });
});
