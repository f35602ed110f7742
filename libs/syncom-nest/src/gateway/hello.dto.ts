import { checkHello, type Hello } from 'syncom';
import { envelope, type Envelope, type EnvelopeOf, int, str } from './envelope-schema';

/** A schema as hello carries it: `{ version, hash }` (SCHEMA-1). */
export const SchemaInfoDto = envelope('schema', { version: int(), hash: str(256) });
/** A schema as hello carries it. */
export type SchemaInfoDto = EnvelopeOf<typeof SchemaInfoDto>;

/** The longest token a hello may carry. */
export const MAX_TOKEN_LENGTH = 4096;

/** Keys Nest's ValidationPipe used to drop from every object of an envelope; a vector never has them honestly. */
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

function dropProtoKeys(vector: unknown): void {
  if (typeof vector !== 'object' || vector === null) return;
  for (const key of PROTO_KEYS) if (Object.prototype.hasOwnProperty.call(vector, key)) delete (vector as Record<string, unknown>)[key];
}

function readHello(value: unknown): Hello {
  dropProtoKeys((value as { vector?: unknown } | null)?.vector);
  const hello = checkHello(value);
  if (hello.token !== undefined && hello.token.length > MAX_TOKEN_LENGTH) throw new Error(`token must be at most ${MAX_TOKEN_LENGTH} characters`);
  // Whitelisted like the rest of the envelope: the schema goes on to events and peer lists.
  if (hello.schema) hello.schema = { version: hello.schema.version, hash: hello.schema.hash };
  return hello;
}

/**
 * The `hello` envelope: the dialer's node id, version vector, log epoch,
 * schema, scopes, token, wire versions and capabilities (PROTO-4). Read by
 * the engine's own checkHello (linear, fuzzed), with the token bounded; a
 * vector's `__proto__`, `constructor` and `prototype` keys are dropped, as
 * the gateway always did. The vector stays the object that came: it is
 * walked once, never copied.
 */
export const HelloDto: Envelope<Hello> = {
  name: 'hello',
  // checkHello reads the vector flat: a value that is no count is refused without walking it.
  deep: [],
  read(value) {
    try {
      return { ok: true, value: readHello(value) };
    } catch (e) {
      return { ok: false, why: e instanceof Error ? e.message : 'hello is malformed' };
    }
  },
};
/** What a checked hello holds. */
export type HelloDto = Hello;
