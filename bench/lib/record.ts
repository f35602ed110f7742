const BODY = 'some text of about fifty characters, for a small note';

/** The record every benchmark writes and reads: small, three register fields. */
export function makeRecord(i: number): { title: string; body: string; n: number } {
  return { title: `note ${i}`, body: BODY, n: i };
}

/** `count` integers in [0, size), from a seeded generator, so every run reads the same sequence. */
export function randomIndexes(count: number, size: number, seed = 1): Uint32Array {
  const out = new Uint32Array(count);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    // xorshift32: cheap, deterministic; the pattern only needs to defeat locality.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = (s >>> 0) % size;
  }
  return out;
}
