import { MAX_BODY_KEYS, verifyJsonDepth } from '../src/json-depth';

/**
 * Nest's ValidationPipe copies a body through class-transformer, which drops
 * repeated keys of each object with an indexOf per key: quadratic in the keys
 * of one object, seconds of CPU for a 1 MB body of 150,000 keys. The body
 * parser's verify refuses an object of more than MAX_BODY_KEYS keys before
 * the body is parsed (no DTO takes more than a few fields anyway).
 */
const body = (text: string) => Buffer.from(text, 'utf8');
const object = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
const verify = (text: string) => verifyJsonDepth(undefined, undefined, body(text));

describe('example-api: the JSON body verify', () => {
  it(`an object of more than ${MAX_BODY_KEYS} keys, at the top or nested, is a 400 before parsing; ${MAX_BODY_KEYS} pass`, () => {
    expect(() => verify(object(MAX_BODY_KEYS))).not.toThrow();
    for (const text of [object(MAX_BODY_KEYS + 1), `{"title":"x","body":[1,${object(100_000)}]}`]) {
      expect(() => verify(text)).toThrow(expect.objectContaining({ status: 400, message: `a JSON object of the body has more than ${MAX_BODY_KEYS} keys` }));
    }
  });

  it('commas of arrays and strings, and of sibling objects, do not count against one object', () => {
    const tags = `[${Array.from({ length: 1000 }, (_, i) => `"t${i}"`).join(',')}]`;
    const small = Array.from({ length: 300 }, () => object(3)).join(',');
    expect(() => verify(`{"add":${tags},"title":"${','.repeat(5000)}","many":[${small}]}`)).not.toThrow();
    expect(() => verify(`{"a":${object(200)},"b":${object(200)}}`)).not.toThrow();
  });

  it('still refuses a body nested past 32 levels', () => {
    expect(() => verify(`{"body":${'['.repeat(40)}${']'.repeat(40)}}`)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
