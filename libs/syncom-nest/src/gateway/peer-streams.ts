import { SyncomError, type HostUnit } from 'syncom';
import type { ChunkAnswer } from '../link/socket-io-protocol';

/** Streams one socket may pull at once; a snapshot pulls one page at a time. */
export const MAX_STREAMS_PER_SOCKET = 8;

/**
 * The snapshot streams a socket is pulling (LINK-5): the unit's NDJSON chunks,
 * one per acknowledged `chunk` message, so the host reads no further than the
 * dialer takes (backpressure). A stream is opened at its first pull and
 * forgotten at its end, on an error, a cancel, or the socket's close.
 */
export class PeerStreams {
  private readonly open = new Map<string, AsyncIterator<Uint8Array>>();

  /**
   * The next chunk of stream `id`.
   * @throws SyncomError 429 TOO_MANY_STREAMS beyond MAX_STREAMS_PER_SOCKET; the unit's refusal (404 for an unknown id).
   */
  async pull(unit: HostUnit, id: string, context: object): Promise<ChunkAnswer> {
    let source = this.open.get(id);
    if (!source) {
      if (this.open.size >= MAX_STREAMS_PER_SOCKET) {
        throw new SyncomError('TOO_MANY_STREAMS', `at most ${MAX_STREAMS_PER_SOCKET} snapshot streams per socket`, { status: 429 });
      }
      source = unit.stream(id, context)[Symbol.asyncIterator]();
      this.open.set(id, source);
    }
    try {
      const next = await source.next();
      if (!next.done) return { done: false, chunk: Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength) };
    } catch (error) {
      this.open.delete(id);
      throw error;
    }
    this.open.delete(id);
    return { done: true };
  }

  /** The dialer stopped reading stream `id`. */
  cancel(id: string): void {
    const source = this.open.get(id);
    this.open.delete(id);
    void source?.return?.()?.catch(() => undefined);
  }

  /** Ends every stream (the socket closed). */
  close(): void {
    for (const id of [...this.open.keys()]) this.cancel(id);
  }
}
