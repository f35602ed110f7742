import { io, type ManagerOptions, type SocketOptions } from 'socket.io-client';
import type { Socket as ClientSocket } from 'socket.io-client';
import type { OpenOptions, Storage } from 'syncom';
import { createSocketIoLink, type SocketIoLink } from '../../src/link';
import { memoryStorage } from './hub';

/** The links a dialer made, with their sockets, newest last, and the events its sockets sent. */
export interface Dialed {
  links: SocketIoLink[];
  sockets: ClientSocket[];
  sent: Array<[event: string, payload: unknown]>;
}

/**
 * A dialing storage whose connect() is the socket.io link, as DESIGN shows it:
 * createSocketIoLink(io(node.url, { auth: { token }, transports: ['websocket'] })).
 */
export async function socketDialer(
  options: Partial<OpenOptions> = {},
  io$: Partial<ManagerOptions & SocketOptions> = {},
): Promise<{ storage: Storage } & Dialed> {
  const dialed: Dialed = { links: [], sockets: [], sent: [] };
  const connect = (node: { url: string; token?: string }) => {
    const socket = io(node.url, { auth: { token: node.token }, transports: ['websocket'], reconnectionDelay: 20, reconnectionDelayMax: 100, ...io$ });
    socket.onAnyOutgoing((event: string, payload: unknown) => void dialed.sent.push([event, payload]));
    const link = createSocketIoLink(socket, { timeout: 10_000 });
    dialed.sockets.push(socket);
    dialed.links.push(link);
    return link;
  };
  const storage = await memoryStorage({ ...options, sync: { connect, ...options.sync } });
  return { storage, ...dialed };
}

/** A raw socket.io-client socket to a gateway, connected. */
export async function rawSocket(url: string, io$: Partial<ManagerOptions & SocketOptions> = {}): Promise<ClientSocket> {
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, ...io$ });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (e) => reject(e));
  });
  return socket;
}

/** A socket to `url` whose handshake carries `origin` (as a browser's does; Node's sends none) and `auth`, or its connect_error. */
export function dialFrom(url: string, origin?: string, auth?: object): Promise<ClientSocket | Error> {
  const socket = io(url, {
    transports: ['websocket'], forceNew: true, reconnection: false,
    ...(origin !== undefined && { extraHeaders: { origin } }), ...(auth && { auth }),
  });
  return new Promise((resolve) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (e) => {
      socket.close();
      resolve(e);
    });
  });
}
