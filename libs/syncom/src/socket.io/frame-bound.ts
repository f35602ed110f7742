import { SyncomError } from '../errors';
import type { ClientSocket } from './client-socket';

/**
 * The largest WebSocket frame a link bounds a socket to when the app set
 * none and the link opens the socket itself (16 MiB): four times the
 * gateway's default pageBytes, so pages and the 64 KiB chunks of a streamed
 * page pass. ws takes 100 MiB by default, and socket.io hands an answer over
 * only once its text frame and up to ten binary attachments (a frame each)
 * all came: about 1.1 GB before the link sees a byte of it.
 */
export const DEFAULT_MAX_PAYLOAD = 16 * 2 ** 20;

type FrameOptions = { maxPayload?: unknown; transportOptions?: { websocket?: { maxPayload?: unknown } } };

let warned = false;

/** Whether this runs on Node, where engine.io-client's WebSocket is ws and takes `maxPayload` (a browser's has no such bound). */
function onNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';
}

/** The frame bound the socket's manager passes to ws, top level or as a websocket transport option; undefined for none. */
export function maxPayloadOf(socket: ClientSocket): number | undefined {
  const opts = socket.io.opts as FrameOptions | undefined;
  const bound = opts?.transportOptions?.websocket?.maxPayload ?? opts?.maxPayload;
  return typeof bound === 'number' && bound > 0 ? bound : undefined;
}

/**
 * Bounds what one frame of the host may weigh, on Node. A socket the link
 * opens itself (made with `autoConnect: false`) without a bound gets
 * DEFAULT_MAX_PAYLOAD on every connection its manager opens; a socket that
 * is already connecting runs its first connection with ws's 100 MiB, and a
 * later one with the bound would differ from it, so it is left alone and
 * the app is warned, once per process, to pass `maxPayload`.
 */
export function boundFrames(socket: ClientSocket, opening: boolean): void {
  if (!onNode() || maxPayloadOf(socket) !== undefined) return;
  const opts = socket.io.opts as FrameOptions | undefined;
  if (opening && opts) {
    opts.maxPayload = DEFAULT_MAX_PAYLOAD;
    return;
  }
  if (warned) return;
  warned = true;
  console.warn(
    'syncom: createSocketIoLink got a socket made without maxPayload: a host may send frames of up to 100 MiB, ' +
      'eleven to an answer. Pass io(url, { transportOptions: { websocket: { maxPayload: 16 * 2 ** 20 } }, … }).',
  );
}

/**
 * FRAME_TOO_LARGE when a 'transport error' drop came of a frame over the
 * socket's maxPayload (ws closes the connection on it), else undefined.
 */
export function frameTooLarge(socket: ClientSocket, details: unknown): SyncomError | undefined {
  const error = (details as { description?: { error?: { code?: unknown } } } | undefined)?.description?.error;
  if (error?.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return undefined;
  const bound = maxPayloadOf(socket);
  return new SyncomError('FRAME_TOO_LARGE', `the host sent a frame over maxPayload (${bound === undefined ? 'ws\'s default' : `${bound} bytes`}): a record that large needs a larger maxPayload`);
}

/** What the link reaches of a manager's decoder (socket.io-client 4's Decoder): fed each frame the connection received. */
interface FrameDecoder {
  add(data: unknown): void;
}

/** Decoders bounded already: a manager's decoder serves every connection it opens, and several links may share a manager. */
const bounded = new WeakSet<object>();

/** A frame's size: a text frame's length (at most its UTF-8 bytes), a binary one's bytes. */
function sizeOf(data: unknown): number {
  if (typeof data === 'string') return data.length;
  const d = data as { byteLength?: unknown; size?: unknown } | null;
  return typeof d?.byteLength === 'number' ? d.byteLength : typeof d?.size === 'number' ? d.size : 0;
}

/**
 * Refuses a frame over the socket's bound (its maxPayload, else
 * DEFAULT_MAX_PAYLOAD) before socket.io decodes it. A browser's WebSocket
 * takes a frame of any size: a hostile host's 200 MiB answer was parsed whole
 * (9 s of the page's main thread in Chromium, the heap grown by as much) and
 * its binary attachments would have followed. The decoder's throw makes the
 * manager close the connection ('parse error', this FRAME_TOO_LARGE as its
 * detail), which the link takes as Node's ws refusal: the frame is not
 * decoded, and the link redials backed off. The frame itself was received
 * (a browser cannot refuse one before it came). On Node ws refuses a frame
 * over maxPayload first; this bound holds for a socket made without one.
 */
export function boundDecoder(socket: ClientSocket): void {
  const decoder = (socket.io as { decoder?: FrameDecoder }).decoder;
  if (!decoder || typeof decoder.add !== 'function' || bounded.has(decoder)) return;
  bounded.add(decoder);
  const add = decoder.add.bind(decoder);
  decoder.add = (data: unknown) => {
    const bound = maxPayloadOf(socket) ?? DEFAULT_MAX_PAYLOAD;
    const size = sizeOf(data);
    if (size > bound) throw new SyncomError('FRAME_TOO_LARGE', `the host sent a frame of ${size} bytes, over maxPayload (${bound} bytes): it was not decoded`);
    add(data);
  };
}

/** FRAME_TOO_LARGE when a 'parse error' drop came of the decoder's bound (boundDecoder), else undefined. */
export function frameRefused(details: unknown): SyncomError | undefined {
  return details instanceof SyncomError && details.code === 'FRAME_TOO_LARGE' ? details : undefined;
}

/** WebSocket's close code for a message too big to take (RFC 6455 7.4.1). */
const CLOSE_TOO_BIG = 1009;

/**
 * MESSAGE_TOO_LARGE when a 'transport close' drop was the host closing the
 * WebSocket on a message of this node past its bound (1009: a hello past the
 * host's bytes before a hello, carrying many streams), else undefined.
 */
export function messageRefused(details: unknown): SyncomError | undefined {
  if ((details as { context?: { code?: unknown } } | undefined)?.context?.code !== CLOSE_TOO_BIG) return undefined;
  return new SyncomError('MESSAGE_TOO_LARGE', 'the host closed the connection on a message of this node past its bound (WebSocket close 1009)', { status: 413 });
}

/** Lets a test see the warning again. */
export function resetFrameWarning(): void {
  warned = false;
}
