import fc from 'fast-check';
import { Decoder } from 'socket.io-parser';
import type { Socket } from 'socket.io';
import { measureFrames, STRINGIFY_BYTES_PER_CHAR, surelyWithin } from '../../src/gateway/frame-size';

const restringified = (text: string) => Buffer.byteLength(JSON.stringify(JSON.parse(text)));

/** A socket whose connection decodes with socket.io's own parser; resolves each decoded event's payload. */
function decoded(texts: string[]): unknown[] {
  const decoder = new Decoder();
  measureFrames({ client: { decoder } } as unknown as Socket);
  const out: unknown[] = [];
  decoder.on('decoded', (packet: { data?: unknown[] }) => void out.push(packet.data?.[1]));
  for (const text of texts) decoder.add(text);
  return out;
}

describe('the limits guard bounds a push by its packet text', () => {
  it('HOST-11: JSON.stringify of what JSON text parses to takes at most 6 UTF-8 bytes per UTF-16 unit of the text', () => {
    // The worst cases: a number written short and stringified long, a lone surrogate, escapes.
    for (const text of ['1e20', '-1e20', '[1e20,9e20]', '1e-6', '"\ud800"', '"\\ud800"', '"\\u0001"', '{"a":1,"a":1e20}', '"é😀"']) {
      expect([text, restringified(text) <= STRINGIFY_BYTES_PER_CHAR * text.length]).toEqual([text, true]);
    }
    fc.assert(fc.property(fc.json(), (text) => restringified(text) <= STRINGIFY_BYTES_PER_CHAR * text.length), { numRuns: 2000 });
  });

  it('HOST-11: an event decoded by socket.io keeps its packet length under its payload; a binary event and an ack are not measured', () => {
    const text = '2/syncom,7["push",{"ops":[1,2,3]}]';
    const [push, binary] = decoded([text, '51-/syncom,8["push",{"ops":[{"_placeholder":true,"num":0}]}]']);
    expect(surelyWithin(push, STRINGIFY_BYTES_PER_CHAR * text.length)).toBe(true);
    expect(surelyWithin(push, STRINGIFY_BYTES_PER_CHAR * text.length - 1)).toBe(false);
    expect(binary).toBeUndefined();
    expect(surelyWithin({ ops: [1, 2, 3] }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});
