import { SyncomError } from '../errors';
import { linkDown } from '../link/link-wire';
import { SYNCOM_EVENTS } from './socket-io-protocol';

/** What pullChunks needs of its link. */
export interface StreamPort {
  /** The live connection; undefined while the socket is down. */
  connection(): object | undefined;
  /** Sends an acknowledged message; resolves with the answer's value, rejects with a SyncomError. */
  send(event: string, payload: unknown): Promise<unknown>;
}

/** A chunk as socket.io hands a binary attachment over (a Buffer in Node, an ArrayBuffer in a browser). */
function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk.slice(0));
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength));
  throw new SyncomError('BAD_ANSWER', 'the host answered a chunk pull without bytes');
}

/**
 * The chunks of a streamed snapshot page (LINK-5), pulled one acknowledged
 * `chunk` message at a time, so the host reads no further than the consumer
 * (backpressure). The stream lives on the host's socket: a reconnect
 * mid-stream throws LINK_DOWN, and a consumer that stops early tells the host
 * to drop it.
 */
export async function* pullChunks(id: string, port: StreamPort): AsyncGenerator<Uint8Array> {
  const conn = port.connection();
  if (conn === undefined) throw linkDown();
  let finished = false;
  try {
    for (;;) {
      const next = (await port.send(SYNCOM_EVENTS.chunk, { stream: id })) as { done?: unknown; chunk?: unknown } | null;
      if (port.connection() !== conn) throw linkDown();
      if (next?.done === true) {
        finished = true;
        return;
      }
      yield toBytes(next?.chunk);
    }
  } finally {
    if (!finished && port.connection() === conn) port.send(SYNCOM_EVENTS.chunk, { stream: id, cancel: true }).catch(() => undefined);
  }
}
