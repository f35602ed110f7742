import type { LoggerService } from '@nestjs/common';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from 'socket.io';
import { createExampleApi } from '../src/create-example-api';

/**
 * The hub this app dials words its refusals as it likes (docs/hub-security.md,
 * The start: the hub writes the token it presented as `<token>`). Its message
 * reaches this app's log through the sync error event: the token
 * (SYNCOM_TOKEN) must not, nor may a newline in it start a line of its own.
 */

const TOKEN = 'tok-SECRET-4f1c9a';

/** Every line the app logs, with a promise of the first one matching. */
class Lines implements LoggerService {
  readonly all: string[] = [];
  private waiting: Array<[RegExp, () => void]> = [];
  log(m: unknown): void { this.add(m); }
  warn(m: unknown): void { this.add(m); }
  error(m: unknown): void { this.add(m); }
  debug(): void {}
  verbose(): void {}
  seen(re: RegExp): Promise<void> {
    return this.all.some((l) => re.test(l)) ? Promise.resolve() : new Promise((resolve) => this.waiting.push([re, resolve]));
  }
  private add(m: unknown): void {
    const line = String(m);
    this.all.push(line);
    this.waiting = this.waiting.filter(([re, done]) => (re.test(line) ? (done(), false) : true));
  }
}

describe('example-api: what a hub it dials says reaches its log without the token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-e2e-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a hello refused with a message quoting the token and holding a newline is logged as <token>, on one line, and GET /sync/peers serves it as <token>', async () => {
    const http = createServer();
    const server = new Server(http, { transports: ['websocket'] });
    server.of('/syncom').on('connection', (socket) => {
      socket.on('hello', (_payload: unknown, ack: (a: unknown) => void) => {
        ack({ ok: false, error: { code: 'UNAUTHORIZED', status: 401, message: `token ${TOKEN} is not known here\n[Nest] 1 - LOG forged` } });
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const hub = `http://127.0.0.1:${(http.address() as AddressInfo).port}/syncom`;
    const lines = new Lines();
    const io = { reconnectionDelay: 50, reconnectionDelayMax: 200 };
    const app = await createExampleApi({ port: 0, host: '127.0.0.1', path: join(dir, 'api'), hub, token: TOKEN, io }, lines);
    try {
      await lines.seen(/UNAUTHORIZED/);
      const logged = lines.all.filter((l) => l.includes('UNAUTHORIZED'));
      expect(logged.length).toBeGreaterThan(0);
      for (const l of logged) {
        expect(l).not.toContain(TOKEN);
        expect(l).not.toContain('\n');
      }
      expect(logged[0]).toContain('<token>');
      // GET /sync/peers answers anyone who reaches the app: the peer's last error is the hub's words too.
      const res = await fetch(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/sync/peers`);
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(text).toContain('UNAUTHORIZED');
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('<token>');
    } finally {
      await app.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a hello refused with 1 MB of words: GET /sync/peers, which answers anyone, serves 300 characters of them, the token as <token>; whole, each GET was 1 MB', async () => {
    const http = createServer();
    const server = new Server(http, { transports: ['websocket'] });
    // The token across position 300: cut before its scrub, its first characters would be served.
    const words = `${'no '.repeat(95)}${TOKEN} ${'x'.repeat(1_000_000)}`;
    server.of('/syncom').on('connection', (socket) => {
      socket.on('hello', (_payload: unknown, ack: (a: unknown) => void) => ack({ ok: false, error: { code: 'UNAUTHORIZED', status: 401, message: words } }));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const hub = `http://127.0.0.1:${(http.address() as AddressInfo).port}/syncom`;
    const lines = new Lines();
    const io = { reconnectionDelay: 50, reconnectionDelayMax: 200 };
    const app = await createExampleApi({ port: 0, host: '127.0.0.1', path: join(dir, 'api-huge'), hub, token: TOKEN, io }, lines);
    try {
      await lines.seen(/UNAUTHORIZED/);
      const res = await fetch(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/sync/peers`);
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(text.length).toBeLessThan(2_000);
      expect(text).toContain('no no <token> … (');
      expect(text).not.toContain(TOKEN.slice(0, 8));
    } finally {
      await app.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
