import type { LoggerService } from '@nestjs/common';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { SyncomGateway } from 'syncom-nest';
import type { Server } from 'node:http';
import { createHub, HTTP_HEADERS_TIMEOUT, HTTP_HEADROOM } from '../src/create-hub';
import { hubConfigFromEnv } from '../src/hub.config';
import { refusedStart } from '../../../scripts/run-main';
import { TestHubs } from './test-hubs';

/** A masked WebSocket text frame (a client's), for a payload under 126 bytes. */
function frame(text: string): Buffer {
  const data = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  return Buffer.concat([Buffer.from([0x81, 0x80 | data.length]), mask, data.map((b, i) => b ^ mask[i % 4])]);
}

/**
 * A WebSocket connection to the hub's engine made by hand, which once open sends `packets` (socket.io packets)
 * in one write, so that the hub reads them all before it admits the first; resolves once it closed or `ms` passed.
 */
function burst(port: number, packets: string[], ms: number): Promise<'closed' | 'open'> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(`GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`));
    let head = '';
    let sent = false;
    s.on('data', (d) => {
      head += d.toString('latin1');
      if (sent || !head.includes('"sid"')) return;
      sent = true;
      s.write(Buffer.concat(packets.map(frame)));
    });
    s.on('error', () => undefined);
    let open = false;
    const timer = setTimeout(() => { open = true; s.destroy(); }, ms);
    s.on('close', () => { clearTimeout(timer); resolve(open ? 'open' : 'closed'); });
  });
}

/** A logger that keeps every line. */
function recorder(): LoggerService & { lines: string[] } {
  const lines: string[] = [];
  const keep = (m: unknown) => void lines.push(String(m));
  return { lines, log: keep, warn: keep, error: keep, debug: keep, verbose: keep, fatal: keep };
}

/** What an operator may get wrong, and an unauthenticated client must not profit from. */
describe('apps/hub: HTTP audit (hostile, e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-http-audit-'));
  const hubs = new TestHubs();
  afterAll(async () => {
    await hubs.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one connection holds one socket on /syncom: connects sent at once (before the first is admitted) do not make a socket each, past SYNCOM_MAX_CONNECTIONS and the per-socket bounds of an open hub', async () => {
    const hub = await hubs.start('sockets', { tokens: [], webDir: false, limits: { maxConnections: 2 } });
    const port = Number(new URL(hub.url).port);
    const server = hub.app.get(SyncomGateway, { strict: false }).server!;
    let connected = 0;
    server.on('connection', () => connected++);
    // socket.io closes a connection that connects again to a namespace it is connected to, but not while the first connect is being admitted.
    expect(await burst(port, Array.from({ length: 200 }, () => '40/syncom,{}'), 3000)).toBe('closed');
    // The second socket closes the connection, and the first with it; none of the rest is made.
    expect(connected).toBeLessThanOrEqual(2);
    expect(server.sockets.size).toBe(0);
  });

  it('TCP connections that never finish a request are bounded too: past SYNCOM_MAX_CONNECTIONS and a headroom the server drops them at once, and headers must come within 10 s', async () => {
    const hub = await hubs.start('tcp', { tokens: [], webDir: false, limits: { maxConnections: 8 } });
    const http = hub.app.getHttpServer() as Server;
    const port = Number(new URL(hub.url).port);
    const over = 50;
    let closed = 0;
    let dropped!: () => void;
    const enough = new Promise<void>((resolve) => (dropped = resolve));
    const sockets = Array.from({ length: 8 + HTTP_HEADROOM + over }, () => {
      const s = connect(port, '127.0.0.1', () => s.write('GET /health HTTP/1.1\r\nHost: x\r\n'));
      s.on('error', () => undefined);
      s.on('close', () => { if (++closed >= over) dropped(); });
      return s;
    });
    // The server drops every connection past its bound at accept: their closes are what this waits for.
    await enough;
    const open = sockets.filter((s) => !s.destroyed && !s.readableEnded).length;
    for (const s of sockets) s.destroy();
    expect(open).toBeLessThanOrEqual(8 + HTTP_HEADROOM);
    expect(http.headersTimeout).toBe(HTTP_HEADERS_TIMEOUT);
  });

  it('a data path inside the served web folder (SYNCOM_PATH=<web>/data) is refused before anything opens: the folder is served to anyone, and the data holds the hub\'s private keys and its peers\' tokens', async () => {
    const web = join(dir, 'web');
    mkdirSync(web, { recursive: true });
    writeFileSync(join(web, 'index.html'), '<!doctype html>');
    // The web folder itself as the data path, a folder under it, and a relative one through '..'.
    for (const path of [web, join(web, 'data'), join(web, 'assets', '..', 'data', 'hub')]) {
      expect(() => hubConfigFromEnv({ SYNCOM_WEB_DIR: web, SYNCOM_PATH: path })).toThrow(/SYNCOM_WEB_DIR/);
    }
    // A data path beside it (a name that only starts alike included), or none served, is fine.
    expect(() => hubConfigFromEnv({ SYNCOM_WEB_DIR: web, SYNCOM_PATH: `${web}-data` })).not.toThrow();
    expect(() => hubConfigFromEnv({ SYNCOM_WEB_DIR: web, SYNCOM_PATH: join(dir, 'data') })).not.toThrow();
    expect(() => hubConfigFromEnv({ SYNCOM_WEB_DIR: 'false', SYNCOM_PATH: join(web, 'data') })).not.toThrow();
    // From main.ts: one line, exit 1, the data directory never made (so no key is written where it is served).
    const inside = join(web, 'data');
    const out = await refusedStart('apps/hub/src/main.ts', { PORT: '0', HOST: '127.0.0.1', SYNCOM_WEB_DIR: web, SYNCOM_PATH: inside });
    expect(out.code).toBe(1);
    expect(out.lines.join('\n')).toMatch(/SYNCOM_WEB_DIR/);
    expect(out.made).toBe(false);
    // createHub itself refuses too (a config written by hand), before the storage opens.
    await expect(createHub({ port: 0, host: '127.0.0.1', path: join(web, 'data2'), tokens: ['t'], webDir: web }, false)).rejects.toThrow(/web/);
    expect(existsSync(join(web, 'data2'))).toBe(false);
  }, 60_000);

  it('SYNCOM_REDIS_URL: no part of its password reaches the log or the start\'s error, an "@" in it included', async () => {
    const log = recorder();
    const secret = 'pa55@w0rd';
    const error = await createHub({ port: 0, host: '127.0.0.1', path: join(dir, 'redis'), tokens: ['t'], webDir: false, redisUrl: `redis://:${secret}@127.0.0.1:1`, redisTimeout: 2000 }, log)
      .then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
    for (const text of [error?.message ?? '', ...log.lines]) {
      expect(text).not.toContain('w0rd');
      expect(text).not.toContain('pa55');
    }
  }, 30_000);
});
