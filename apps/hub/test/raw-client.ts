import type { KeyObject } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { type Op, packOps, signOp } from 'syncom';
import { newSigningKey } from 'syncom/testing';

/** What the gateway answers on an ack. */
export type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string; status: number } };

/** A connect_error's data, as the gateway's handshake middlewares set it. */
export interface HandshakeRefusal {
  message: string;
  data?: { code?: string; status?: number };
}

/**
 * A peer speaking the socket.io wire by hand (PROTOCOL-SOCKETIO.md), to send
 * what a syncom node never would: an op in another node's name, a push over
 * the limits, a hello claiming scopes its token does not have.
 */
export class RawClient {
  private readonly signing = newSigningKey();
  readonly key: KeyObject = this.signing.key;
  /** Its Ed25519 node id: the raw public key, base64url (SIG-2). */
  readonly node = this.signing.node;

  private constructor(readonly socket: Socket) {}

  /**
   * Connects to `url` (…/syncom) with `token` at the handshake.
   * @throws the connect_error (a HandshakeRefusal) when the hub refuses the socket.
   */
  static async connect(url: string, token?: string): Promise<RawClient> {
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, ...(token !== undefined && { auth: { token } }) });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
    } catch (e) {
      socket.close();
      throw e;
    }
    return new RawClient(socket);
  }

  call(event: string, payload: unknown): Promise<Answer> {
    return this.socket.timeout(30_000).emitWithAck(event, payload) as Promise<Answer>;
  }

  /** hello as this client's own node. */
  hello(scopes: string[], token?: string): Promise<Answer> {
    return this.call('hello', { node: this.node, vector: {}, epoch: 'raw', schema: null, scopes, ...(token !== undefined && { token }) });
  }

  /** push of `ops` as they are (signed or not). */
  push(ops: Op[]): Promise<Answer> {
    return this.call('push', { ops: packOps(ops) });
  }

  /** An op of this client's own, signed with its key. */
  signed(op: Omit<Op, 'origin'>): Op {
    return signOp({ ...op, origin: this.node } as Op, this.key);
  }

  close(): void {
    this.socket.close();
  }
}

/** The refusal a connect attempt met, or undefined when it connected (and is closed again). */
export async function refusalOf(url: string, token?: string): Promise<HandshakeRefusal | undefined> {
  try {
    (await RawClient.connect(url, token)).close();
    return undefined;
  } catch (e) {
    return e as HandshakeRefusal;
  }
}
