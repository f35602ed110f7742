import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExampleApi } from '../src/create-example-api';
import { exampleConfigFromEnv } from '../src/example.config';
import { allowedHostsOf } from '../src/host-check';

/** A request to the app at `port` with the given Host header, as a browser on a rebound name sends it; answers { status, type, body }. */
function send(port: number, host: string, method = 'GET', path = '/notes', body?: unknown): Promise<{ status: number; type: string; body: any }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers = { host, ...(text !== undefined && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }) };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let got = '';
      res.setEncoding('utf8').on('data', (c: string) => (got += c)).on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: got ? JSON.parse(got) : undefined }));
    });
    req.on('error', reject).end(text);
  });
}

/**
 * DNS rebinding: a page of evil.example, whose name then resolves to the app's address, is same-origin with the
 * app in the browser's eyes (jsonOnlyWrites lets its writes through), and its requests carry `Host: evil.example`.
 * The app has no authentication: it refuses a Host naming a DNS name it was not told of.
 */
describe('example-api: DNS rebinding, the Host header (hostile, e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-e2e-'));
  const apps: INestApplication[] = [];
  let port: number;
  const start = async (name: string, allowedHosts?: string[] | '*'): Promise<number> => {
    const app = await createExampleApi({ port: 0, host: '127.0.0.1', path: join(dir, name), ...(allowedHosts !== undefined && { allowedHosts }) }, false);
    apps.push(app);
    return Number(new URL(await app.getUrl()).port);
  };
  beforeAll(async () => {
    port = await start('api', ['api.example', '.corp.example']);
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a Host naming evil.example is refused 403 with one JSON line, for GET /notes and POST /notes alike, and writes nothing', async () => {
    const refusal = { statusCode: 403, error: 'Forbidden', message: 'this app does not answer for the host name "evil.example": list it in ALLOWED_HOSTS' };
    const before = (await send(port, `127.0.0.1:${port}`)).body.length as number;
    for (const host of [`evil.example:${port}`, 'evil.example', 'EVIL.example.']) {
      expect(await send(port, host)).toEqual({ status: 403, type: 'application/json; charset=utf-8', body: refusal });
      expect(await send(port, host, 'POST', '/notes', { title: 'planted' })).toEqual({ status: 403, type: 'application/json; charset=utf-8', body: refusal });
    }
    expect((await send(port, 'evil.example', 'GET', '/no-such-route')).status).toBe(403);
    expect((await send(port, 'sub.api.example')).status).toBe(403);
    expect((await send(port, 'evil.example:x')).body.message).toBe('this app does not answer for the host name "": list it in ALLOWED_HOSTS');
    expect((await send(port, `127.0.0.1:${port}`)).body.length).toBe(before);
  });

  it('IP literals, localhost and *.localhost pass, and so do the names listed (a name, or .domain and its subdomains)', async () => {
    const id = (await send(port, `127.0.0.1:${port}`, 'POST', '/notes', { title: 'mine' })).body.id as string;
    for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'localhost', 'app.localhost', `[::1]:${port}`, `api.example:${port}`, 'API.example.', 'corp.example', 'x.corp.example']) {
      const got = await send(port, host, 'GET', `/notes/${id}`);
      expect([host, got.status, got.body.title]).toEqual([host, 200, 'mine']);
    }
    expect((await send(port, 'api.example', 'POST', '/notes', { title: 'listed' })).status).toBe(201);
  });

  it('HOST, when a name, passes; ALLOWED_HOSTS=* lets every Host through', async () => {
    expect(allowedHostsOf({ host: 'notes.lan', allowedHosts: ['x.example'] })).toEqual(['x.example', 'notes.lan']);
    expect(allowedHostsOf({ host: '0.0.0.0' })).toEqual([]);
    expect(allowedHostsOf({ host: '0.0.0.0', allowedHosts: '*' })).toBeUndefined();
    const any = await start('any', '*');
    expect((await send(any, 'evil.example')).status).toBe(200);
    const none = await start('none');
    expect((await send(none, 'evil.example')).status).toBe(403);
    expect((await send(none, 'localhost')).status).toBe(200);
  });

  it('ALLOWED_HOSTS is read as the hub reads SYNCOM_ALLOWED_HOSTS; an entry that is no host name stops the app with one line', () => {
    expect(exampleConfigFromEnv({}).allowedHosts).toEqual([]);
    expect(exampleConfigFromEnv({ ALLOWED_HOSTS: ' * ' }).allowedHosts).toBe('*');
    expect(exampleConfigFromEnv({ ALLOWED_HOSTS: 'Api.Example., .corp.example,,my_host' }).allowedHosts).toEqual(['api.example', '.corp.example', 'my_host']);
    for (const bad of ['http://api.example', 'api.example:3000', '*.example', '*,api.example']) {
      expect(() => exampleConfigFromEnv({ ALLOWED_HOSTS: bad })).toThrow(`ALLOWED_HOSTS=${JSON.stringify(bad)}: `);
    }
  });
});
