/** How deep a JSON body may nest: the notes' bodies are a few levels at most (a field, an array of strings). */
export const MAX_BODY_DEPTH = 32;

/**
 * How many keys one object of a JSON body may hold. Nest's ValidationPipe
 * copies the body through class-transformer, which drops repeated keys of
 * each object with an indexOf per key: a 1 MB body of 150,000 keys cost
 * seconds of CPU before the DTO refused its unknown fields. No DTO takes
 * more than a few.
 */
export const MAX_BODY_KEYS = 256;

const refuse = (message: string): Error => Object.assign(new Error(message), { status: 400 });

/**
 * The JSON parser's `verify`: refuses a body nested past MAX_BODY_DEPTH, or
 * with an object of more than MAX_BODY_KEYS keys, with 400, before it is
 * parsed. Parsed, a body of a few thousand nested arrays (4 KB) overflowed
 * the stack of Nest's ValidationPipe as it walked it: a 500 with no error
 * field, and a stack trace logged for each request. One pass over the
 * bytes, strings skipped; an object's keys are counted by its commas.
 */
export function verifyJsonDepth(_req: unknown, _res: unknown, body: Buffer): void {
  let depth = 0;
  let inString = false;
  // Per open level: whether it is an object, and how many members it has seen (its commas + 1).
  const isObject: boolean[] = [false];
  const members: number[] = [0];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_BODY_DEPTH) throw refuse(`the JSON body nests more than ${MAX_BODY_DEPTH} levels deep`);
      isObject[depth] = c === 0x7b;
      members[depth] = 1;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth > 0 && isObject[depth] && ++members[depth] > MAX_BODY_KEYS) {
      throw refuse(`a JSON object of the body has more than ${MAX_BODY_KEYS} keys`);
    }
  }
}
