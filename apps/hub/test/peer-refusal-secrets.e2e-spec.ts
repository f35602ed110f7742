import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { CaptureLogger } from '../../../libs/syncom-nest/test/helpers/capture-logger';
import { TestHubs } from './test-hubs';

const io = { reconnectionDelay: 50, reconnectionDelayMax: 200 };
const PEER_TOKEN = 'Pe3r-T0ken-s3cret';

/**
 * A socket.io host on /syncom that refuses every handshake, wording its refusal with the token it was sent:
 * with a code (a refusal the dialer reports), or with `words` alone (no code: a failure to reach it).
 */
async function wordyHost(words?: (token: string) => string, coded = !words): Promise<{ url: string; close: () => Promise<void> }> {
  const server = new Server({ transports: ['websocket'] });
  server.of('/syncom').use((socket, next) => {
    const token = String(socket.handshake.auth.token);
    const message = words ? words(token) : `no entry for token ${token}`;
    next(Object.assign(new Error(message), coded ? { data: { code: 'UNAUTHORIZED', status: 401, message } } : {}));
  });
  const http = createHttpServer();
  server.attach(http);
  const port = await new Promise<number>((resolve) => http.listen(0, '127.0.0.1', () => resolve((http.address() as AddressInfo).port)));
  return { url: `http://127.0.0.1:${port}/syncom`, close: () => new Promise((resolve) => void server.close(() => resolve())) };
}

/**
 * A hub this one dials (SYNCOM_PEERS) words its refusals as it likes, and may quote the token it was sent:
 * the token this hub presents (SYNCOM_PEER_TOKEN) must not reach the hub's log, nor GET /health's detail.
 */
describe('apps/hub: a peer refusal that quotes the peer token (e2e)', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  it('the hub logs the refusal and /health shows it with <token> in the token\'s place', async () => {
    const peer = await wordyHost();
    try {
      const logger = new CaptureLogger();
      const hub = await hubs.start('wordy', { io, peers: [peer.url], peerToken: PEER_TOKEN, healthDetail: true }, logger);
      await logger.signal.until(() => logger.lines.some(([, , m]) => m.startsWith('UNAUTHORIZED')), 'the refusal logged');
      const lines = logger.lines.map(([, , m]) => m);
      expect(lines.find((l) => l.startsWith('UNAUTHORIZED'))).toContain('no entry for token <token>');
      expect(lines.filter((l) => l.includes(PEER_TOKEN))).toEqual([]);

      const health = (await (await fetch(`${hub.url}/health`)).json()) as { peers: { lastError: { code: string; message: string } | null }[] };
      expect(health.peers).toEqual([expect.objectContaining({ lastError: expect.objectContaining({ code: 'UNAUTHORIZED', message: expect.stringContaining('<token>') }) })]);
      expect(JSON.stringify(health)).not.toContain(PEER_TOKEN);
    } finally {
      await hubs.stopAll();
      await peer.close();
    }
  });

  it('a refusal without a code, logged as the peer out of reach, shows the token as <token> however long the words before it: cut to 300 characters first, the token had lost its last character and its other 16 were logged', async () => {
    // 284 characters, then the token: a cut at 300 ends one character into its end.
    const peer = await wordyHost((token) => `${'go away '.repeat(35)}at: ${token} please`);
    try {
      const logger = new CaptureLogger();
      await hubs.start('wordy-long', { io, peers: [peer.url], peerToken: PEER_TOKEN }, logger);
      await logger.signal.until(() => logger.lines.some(([, , m]) => / unreachable: /.test(m)), 'the failure logged');
      const line = logger.lines.map(([, , m]) => m).find((m) => / unreachable: /.test(m));
      expect(line).toContain('at: <token>');
      expect(logger.lines.filter(([, , m]) => m.includes(PEER_TOKEN.slice(0, 8)))).toEqual([]);
    } finally {
      await hubs.stopAll();
      await peer.close();
    }
  });

  it('a refusal of 1 MB is logged cut to 300 characters of its words, its token as <token>: whole, each refusal a peer hub sent was a line of its size', async () => {
    const peer = await wordyHost((token) => `refused ${token} ${'x'.repeat(1_000_000)}`, true);
    try {
      const logger = new CaptureLogger();
      await hubs.start('wordy-huge', { io, peers: [peer.url], peerToken: PEER_TOKEN }, logger);
      await logger.signal.until(() => logger.lines.some(([, , m]) => m.startsWith('UNAUTHORIZED')), 'the refusal logged');
      const line = logger.lines.map(([, , m]) => m).find((m) => m.startsWith('UNAUTHORIZED')) ?? '';
      expect(line).toContain('refused <token> … (');
      expect(line.length).toBeLessThan(400);
      expect(logger.lines.filter(([, , m]) => m.includes(PEER_TOKEN))).toEqual([]);
    } finally {
      await hubs.stopAll();
      await peer.close();
    }
  });
});
