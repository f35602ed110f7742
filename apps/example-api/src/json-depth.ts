/** How deep a JSON body may nest: the notes' bodies are a few levels at most (a field, an array of strings). */
export const MAX_BODY_DEPTH = 32;

/**
 * The JSON parser's `verify`: refuses a body nested past MAX_BODY_DEPTH with
 * 400, before it is parsed. Parsed, a body of a few thousand nested arrays
 * (4 KB) overflowed the stack of Nest's ValidationPipe as it walked it: a
 * 500 with no error field, and a stack trace logged for each request. One
 * pass over the bytes, strings skipped.
 */
export function verifyJsonDepth(_req: unknown, _res: unknown, body: Buffer): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_BODY_DEPTH) throw Object.assign(new Error(`the JSON body nests more than ${MAX_BODY_DEPTH} levels deep`), { status: 400 });
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}
