import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { serve } from '../lib/child-server';
import { processCpuUs } from '../lib/cpu';

/** One system's server, started by the generic server child (serveServer). */
export interface PeerServer {
  /** The HTTP server its WebSocket server is attached to: its TCP sockets are counted. */
  readonly http: Server;
  /** The url its clients dial, and the token they present if it checks one. */
  readonly url: string;
  readonly token?: string;
  close(): Promise<void>;
}

/** Starts one system's server on 127.0.0.1, any free port, with fresh state; `args` come from the bench. */
export type StartServer = (args: Record<string, unknown>) => Promise<PeerServer>;

/**
 * Bytes on the wire: every byte read from and written to the TCP sockets of
 * the server's HTTP server, HTTP upgrade and WebSocket framing included, both
 * ways and for both clients. Node counts them per socket (bytesRead,
 * bytesWritten), so nothing sits in the path of the data; a closed socket's
 * last counts are kept.
 */
class ByteCount {
  private readonly live = new Set<Socket>();
  private closed = 0;

  watch(http: Server): void {
    http.on('connection', (socket: Socket) => {
      this.live.add(socket);
      socket.once('close', () => {
        this.live.delete(socket);
        this.closed += socket.bytesRead + socket.bytesWritten;
      });
    });
  }

  total(): number {
    let sum = this.closed;
    for (const s of this.live) sum += s.bytesRead + s.bytesWritten;
    return sum;
  }
}

/**
 * The server child of every system: start (a fresh server, answers its url),
 * bytes (the count so far), cpu (the process's CPU so far, every thread, µs),
 * stop. The bench reads the count and the CPU before a run's writes and after
 * the reader has caught up.
 */
export function serveServer(startServer: StartServer): void {
  let server: PeerServer | undefined;
  let bytes: ByteCount | undefined;
  const stop = async () => {
    const s = server;
    server = undefined;
    await s?.close();
  };
  serve({
    async start(args) {
      await stop();
      server = await startServer(args);
      bytes = new ByteCount();
      bytes.watch(server.http);
      return { url: server.url, token: server.token };
    },
    bytes: () => ({ bytes: bytes?.total() ?? 0 }),
    cpu: () => ({ us: processCpuUs() }),
    stop,
  }, stop);
}

/** Listens on 127.0.0.1, a free port; resolves with the port. */
export function listen(http: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => {
      const address = http.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

/** Closes an HTTP server and every socket still on it (a WebSocket server's clients keep theirs open). */
export function closeHttp(http: Server): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}
