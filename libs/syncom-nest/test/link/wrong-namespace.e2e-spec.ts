import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { Storage, type SyncomError } from 'syncom';
import { CaptureLogger } from '../helpers/capture-logger';
import { startHub, type TestHub } from '../helpers/hub';
import { startApp } from '../helpers/start-app';
import { waitFor } from '../helpers/until';

/**
 * A dialer given the hub's address without the gateway's namespace (`http://hub:8000`), or with a
 * trailing slash (`/syncom/`), reaches a namespace nothing serves. The gateway closes such a
 * connection at its connect (test/hostile/binary-and-namespaces.e2e-spec.ts); it used to close it
 * unsaid, and the dialer redialed for good with no error, no lastError and no log line.
 */
describe('a dialer whose url names a namespace the hub does not serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-nest-namespace-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let hub: TestHub;
  beforeEach(async () => {
    hub = await startHub();
  });
  afterEach(() => hub.close());

  it("is refused at connect with socket.io's connect_error, BAD_REQUEST, naming the namespace asked for and the one served", async () => {
    for (const nsp of ['/', '/syncom/', '/sync']) {
      const socket = io(`http://127.0.0.1:${hub.port}${nsp}`, { transports: ['websocket'], reconnection: false, forceNew: true });
      const outcome = await new Promise<{ message: string; data?: unknown } | string>((resolve) => {
        socket.once('connect', () => resolve('connected'));
        socket.once('connect_error', (e: Error & { data?: unknown }) => resolve({ message: e.message, data: e.data }));
        // 'forced close' is the client's own, as a refused socket lets go of its connection; the hub's is 'transport close'.
        socket.io.on('close', (reason) => reason !== 'forced close' && resolve(`closed unsaid: ${reason}`));
      });
      socket.close();
      expect(outcome).toEqual({
        message: expect.stringContaining(`nothing is served on namespace ${JSON.stringify(nsp)}`),
        data: { code: 'BAD_REQUEST', status: 400, message: expect.stringContaining('"/syncom"') },
      });
    }
  });

  it("a Nest dialer's hub url without the namespace: the sync error, the peer's lastError and the Syncom log line say so", async () => {
    const logger = new CaptureLogger();
    const app = await startApp({ path: join(dir, 'dialer') }, logger);
    try {
      const storage = app.get(Storage);
      const errors: SyncomError[] = [];
      storage.sync.on('error', (e) => void errors.push(e));
      await storage.sync.addNode({ url: `http://127.0.0.1:${hub.port}` });
      await waitFor(() => errors.length > 0, (retest) => storage.sync.on('error', retest), 'the sync error');
      expect(errors[0]).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('served on "/syncom"') });
      expect(storage.sync.peers()[0].lastError).toMatchObject({ code: 'BAD_REQUEST' });
      expect(logger.of('Syncom').some((line) => line.includes('nothing is served on namespace "/"'))).toBe(true);
    } finally {
      await app.close();
    }
  });
});
