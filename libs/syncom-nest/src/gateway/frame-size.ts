import type { Socket } from 'socket.io';

/**
 * The length of the text each message came in, kept by the payload object
 * socket.io hands the handler: the limits guard bounds a push's JSON by it
 * instead of stringifying the ops again (a page of 500 ops costs about a
 * millisecond to stringify on the hub's main thread).
 */
const frameChars = new WeakMap<object, number>();

/** socket.io-parser's EVENT packet type (a BINARY_EVENT is decoded apart, and is never measured). */
const EVENT = 2;

interface Packet {
  type: number;
  data?: unknown;
}

interface Decoder {
  decodeString?: (text: string) => Packet;
}

const measured = new WeakSet<object>();

/**
 * Keeps, for each event decoded on the socket's connection, the UTF-16
 * length of its packet text under its payload (`data[1]`: what the handler
 * and its guards receive). The decoder's string decoding is wrapped, once per
 * connection: a parser without it (a custom one) is left alone, and the guard
 * then counts the exact way.
 */
export function measureFrames(socket: Socket): void {
  const decoder = (socket.client as unknown as { decoder?: Decoder } | undefined)?.decoder;
  const decode = decoder?.decodeString;
  if (!decoder || typeof decode !== 'function' || measured.has(decoder)) return;
  measured.add(decoder);
  decoder.decodeString = function (this: Decoder, text: string): Packet {
    const packet = decode.call(this, text);
    const payload = packet.type === EVENT && Array.isArray(packet.data) ? (packet.data[1] as unknown) : undefined;
    if (typeof payload === 'object' && payload !== null) frameChars.set(payload, text.length);
    return packet;
  };
}

/**
 * The most UTF-8 bytes JSON.stringify can give for a value parsed from JSON
 * text of `chars` UTF-16 units, any part of it: per unit at most 6 bytes. A
 * lone surrogate (one unit) is written `\udXXX`; an escape is written in no
 * more bytes than it takes; a number grows the most, "1e20" (4 units) being
 * written with its 21 digits; whitespace and repeated keys only shrink.
 */
export const STRINGIFY_BYTES_PER_CHAR = 6;

/** Whether `payload` came in a packet short enough that any part of it stringifies to at most `bytes`. */
export function surelyWithin(payload: unknown, bytes: number): boolean {
  const chars = typeof payload === 'object' && payload !== null ? frameChars.get(payload) : undefined;
  return chars !== undefined && chars * STRINGIFY_BYTES_PER_CHAR <= bytes;
}
