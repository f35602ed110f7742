import type { Namespace, Server } from 'socket.io';
import { RECONCILE_DEFAULTS, RECONCILE_MIN_FRAME_LIMIT, type Limits } from 'syncom';

/** Room for what wraps a push's ops in one socket.io message: event name, ack id, `{"ops":…}`. */
export const ENVELOPE_HEADROOM = 64 * 1024;

/**
 * The message size without a bytesPerPush: socket.io's own default (1 MB)
 * would drop the connection under a 500-op page of larger records, and the
 * dialer would redial into the same wall.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** socket.io's maxHttpBufferSize for these limits: bytesPerPush plus the envelope's headroom. */
export function maxMessageBytes(limits: Limits | undefined): number {
  const bytes = limits?.bytesPerPush;
  return bytes !== undefined && Number.isFinite(bytes) && bytes >= 0 ? Math.ceil(bytes) + ENVELOPE_HEADROOM : DEFAULT_MAX_MESSAGE_BYTES;
}

/**
 * The reconcile frame of the gateway's unit: what fits one
 * message beside its envelope, at most the engine's default. The host tells
 * dialers in hello, so their reconcile messages never trip the message limit.
 */
export function reconcileFrameFor(limits: Limits | undefined): number {
  const fits = maxMessageBytes(limits) - ENVELOPE_HEADROOM;
  return Math.max(RECONCILE_MIN_FRAME_LIMIT, Math.min(RECONCILE_DEFAULTS.frameLimit, fits));
}

interface EngineKnobs {
  opts: { maxHttpBufferSize: number; perMessageDeflate: unknown };
  init?: () => void;
}

/**
 * Sets the engine's maxHttpBufferSize once the options are known, which with
 * an async options factory is after the gateway class was decorated. The
 * polling transport reads the option per request; the WebSocket server takes
 * it as maxPayload when it is built, so it is rebuilt here, before any client
 * connected (afterInit). permessage-deflate stays off: a zlib context per
 * socket and the CPU to deflate every page cost a hub with many peers more
 * than the bandwidth saves. The engine is shared by every namespace of the server.
 */
export function applyMessageLimit(server: Namespace | Server, bytes: number): void {
  const io: Server = 'server' in server ? server.server : server;
  const engine = io.engine as unknown as EngineKnobs;
  engine.opts.maxHttpBufferSize = bytes;
  engine.opts.perMessageDeflate = false;
  engine.init?.();
}

/** The engine's current maxHttpBufferSize (for logs and tests). */
export function messageLimitOf(server: Namespace | Server): number {
  const io: Server = 'server' in server ? server.server : server;
  return (io.engine as unknown as EngineKnobs).opts.maxHttpBufferSize;
}
