import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { newSigningKey } from 'syncom/testing';
import { CaptureLogger } from '../../../libs/syncom-nest/test/helpers/capture-logger';
import { hubConfigFromEnv } from '../src/hub.config';
import { allowedHosts, hostAllowed } from '../src/hub-hosts';
import { hubSummary } from '../src/hub-summary';
import { TestHubs } from './test-hubs';

const HELLO = { node: newSigningKey().node, vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

/** A built web app in miniature. */
function fakeDist(): string {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-rebind-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>syncom notes</title>');
  return dir;
}

/** A GET of `path` on the hub at `port` with the given Host (and Origin), as a browser on a rebound name sends it. */
function get(port: number, path: string, host: string, origin?: string, more: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host, ...(origin && { origin }), ...more } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }));
    });
    req.on('error', reject).end();
  });
}

/**
 * DNS rebinding: a page of evil.example, whose name then resolves to the hub's address (127.0.0.1 on the
 * operator's laptop), is same-origin with the hub in the browser's eyes, and its requests carry
 * `Host: evil.example:<port>` and `Origin: http://evil.example:<port>`: the origin check alone took them as the
 * hub's own pages. An open hub refuses a Host naming a DNS name it was not told of, as Vite's allowedHosts does.
 */
describe('apps/hub: DNS rebinding, the Host header of an open hub (hostile, e2e)', () => {
  const hubs = new TestHubs();
  const dist = fakeDist();
  const sockets: ClientSocket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.close();
    await hubs.stopAll();
    rmSync(dist, { recursive: true, force: true });
  });

  /** What a page at `host` gets over socket.io: refused at the handshake, or greeted and whether a snapshot holds the secret note. */
  async function attempt(syncomUrl: string, host: string): Promise<{ admitted: boolean; greeted?: boolean; read?: boolean }> {
    const socket = io(syncomUrl, { transports: ['websocket'], forceNew: true, reconnection: false, extraHeaders: { host, origin: `http://${host}` } });
    sockets.push(socket);
    const admitted = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('connect_error', () => resolve(false));
    });
    if (!admitted) return { admitted };
    const hello = (await socket.timeout(5000).emitWithAck('hello', HELLO)) as { ok: boolean };
    const page: unknown = await socket.timeout(5000).emitWithAck('snapshot', {});
    socket.close();
    return { admitted, greeted: hello.ok, read: JSON.stringify(page).includes('"secret"') };
  }

  it('an open hub on 127.0.0.1 refuses a rebound name\'s socket.io handshake and HTTP requests; its address, localhost and a listed name pass', async () => {
    const hub = await hubs.start('open', { tokens: [], webDir: dist, allowedHosts: ['hub.example'] });
    await hub.storage.insert({ $type: 'Note', title: 'secret' });
    const port = Number(new URL(hub.url).port);
    const evil = `evil.example:${port}`;
    expect(await attempt(hub.syncomUrl, evil)).toEqual({ admitted: false });
    for (const path of ['/', '/health', '/socket.io/?EIO=4&transport=polling']) {
      expect(await get(port, path, evil, `http://${evil}`)).toEqual({ status: 403, type: 'text/plain; charset=utf-8', text: expect.stringContaining('SYNCOM_ALLOWED_HOSTS') });
    }
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    expect(await get(port, '/socket.io/?EIO=4&transport=websocket', evil, `http://${evil}`, upgrade)).toEqual({ status: 403, type: 'text/plain; charset=utf-8', text: expect.stringContaining('SYNCOM_ALLOWED_HOSTS') });
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `hub.example:${port}`]) {
      expect(await attempt(hub.syncomUrl, host)).toEqual({ admitted: true, greeted: true, read: true });
      expect((await get(port, '/', host)).status).toBe(200);
    }
  });

  it('a refusal is one sampled warning, and neither it nor the answer carries more of the Host header than its name, cut', async () => {
    const logger = new CaptureLogger();
    const hub = await hubs.start('sampled', { tokens: [], webDir: false }, logger);
    const port = Number(new URL(hub.url).port);
    const long = `${'a'.repeat(300)}.example:${port}`;
    const answer = await get(port, '/health', long);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain(`"${'a'.repeat(64)}"`);
    expect(answer.text).not.toContain('a'.repeat(65));
    for (let i = 0; i < 20; i++) expect((await get(port, '/health', `evil.example:${port}`)).status).toBe(403);
    expect(await attempt(hub.syncomUrl, `evil.example:${port}`)).toEqual({ admitted: false });
    const lines = logger.of('Hub').filter((m) => m.startsWith('refused a request for host'));
    expect(lines).toEqual([expect.stringMatching(/^refused a request for host "a{64}" from \S+: not an IP address, localhost nor in SYNCOM_ALLOWED_HOSTS/)]);
    expect(logger.of('Hub').find((m) => m.startsWith('data '))).toMatch(/; host names: IP addresses, localhost \(SYNCOM_ALLOWED_HOSTS\)$/);
  });

  it('a hub with tokens answers any name (a rebinding page cannot know a token) unless SYNCOM_ALLOWED_HOSTS is set; "*" is any name', async () => {
    const tokens = await hubs.start('tokens', { webDir: dist });
    const port = Number(new URL(tokens.url).port);
    expect((await get(port, '/', `evil.example:${port}`)).status).toBe(200);
    const held = await hubs.start('tokens-held', { webDir: dist, allowedHosts: ['.example.com'] });
    const heldPort = Number(new URL(held.url).port);
    expect((await get(heldPort, '/', `evil.example:${heldPort}`)).status).toBe(403);
    expect((await get(heldPort, '/', `hub.example.com:${heldPort}`)).status).toBe(200);
    const any = await hubs.start('open-any', { tokens: [], webDir: false, allowedHosts: '*' });
    expect(await attempt(any.syncomUrl, `evil.example:${new URL(any.url).port}`)).toMatchObject({ admitted: true, greeted: true });
  });

  it('which Host headers pass: IP addresses, localhost and *.localhost, listed names and domains, the hosts of the listed origins and a named HOST', () => {
    const hosts = ['hub.example', '.corp.example'];
    for (const ok of [undefined, '127.0.0.1:8000', '10.0.0.2', '[::1]:8000', '[fe80::1]', 'localhost', 'LOCALHOST:1', 'app.localhost:8000', 'hub.example', 'Hub.Example.:8000', 'corp.example', 'a.b.corp.example:443']) {
      expect([ok, hostAllowed(ok, hosts)]).toEqual([ok, true]);
    }
    for (const bad of ['', 'evil.example:8000', 'hub.example.evil.example', 'evilcorp.example', 'localhost.evil.example', '[evil.example]', '[::1', '127.0.0.1:80:80', 'hub.example/x', '2130706433.example']) {
      expect([bad, hostAllowed(bad, hosts)]).toEqual([bad, false]);
    }
    expect(allowedHosts({ tokens: [] })).toEqual([]);
    expect(allowedHosts({ tokens: ['t'] })).toBeUndefined();
    expect(allowedHosts({ tokens: [], allowedHosts: '*' })).toBeUndefined();
    expect(allowedHosts({ tokens: ['t'], allowedHosts: [] })).toEqual([]);
    expect(allowedHosts({ tokens: [], host: 'hub.lan', allowedOrigins: ['https://app.example', 'http://127.0.0.1:5173'], allowedHosts: ['x.example'] })).toEqual(['x.example', 'app.example', '127.0.0.1', 'hub.lan']);
    expect(allowedHosts({ tokens: [], host: '0.0.0.0', allowedOrigins: '*' })).toEqual([]);
  });

  it('reads SYNCOM_ALLOWED_HOSTS: "*", names and .domains (lower-cased), or empty; a port, a scheme, a wildcard or a "*" among names is refused HUB_CONFIG', () => {
    expect(hubConfigFromEnv({})).not.toHaveProperty('allowedHosts');
    expect(hubConfigFromEnv({ SYNCOM_ALLOWED_HOSTS: ' * ' }).allowedHosts).toBe('*');
    expect(hubConfigFromEnv({ SYNCOM_ALLOWED_HOSTS: 'Hub.Example., .corp.example,,my_host' }).allowedHosts).toEqual(['hub.example', '.corp.example', 'my_host']);
    expect(hubConfigFromEnv({ SYNCOM_ALLOWED_HOSTS: '' }).allowedHosts).toEqual([]);
    for (const bad of ['hub.example:8000', 'http://hub.example', '*.example.com', '*,hub.example', '.', 'hub..example', '-hub.example', 'hub.example/x', '[::1]']) {
      expect(() => hubConfigFromEnv({ SYNCOM_ALLOWED_HOSTS: bad })).toThrow(expect.objectContaining({ code: 'HUB_CONFIG', variable: 'SYNCOM_ALLOWED_HOSTS' }));
    }
    expect(() => hubConfigFromEnv({ SYNCOM_ALLOWED_HOSTS: '*.example.com' })).toThrow('SYNCOM_ALLOWED_HOSTS="*.example.com": "*.example.com" is no host name');
    const url = 'http://127.0.0.1:8000';
    expect(hubSummary(hubConfigFromEnv({ SYNCOM_ALLOWED_HOSTS: 'hub.example' }), url)[0]).toMatch(/; host names: IP addresses, localhost, hub.example \(SYNCOM_ALLOWED_HOSTS\)$/);
    expect(hubSummary(hubConfigFromEnv({ SYNCOM_TOKENS: 't' }), url)[0]).not.toContain('host names');
  });
});
