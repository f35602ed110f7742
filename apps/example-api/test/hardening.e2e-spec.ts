import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { open } from 'syncom';
import { createExampleApi } from '../src/create-example-api';
import { exampleConfigFromEnv } from '../src/example.config';
import { Apps, http } from './apps';
import { refusedStart } from '../../../scripts/run-main';


const refused = (env: Record<string, string> & { SYNCOM_PATH: string }) => refusedStart('apps/example-api/src/main.ts', { SYNCOM_HUB: '', ...env });

/**
 * A raw request: `body` sent as it is, with `type` as its content type. With no type, the body goes as a
 * Blob without one, so no Content-Type is sent at all (a string body would get text/plain from fetch).
 */
async function raw(url: string, method: string, body?: string, type?: string): Promise<{ status: number; body: any }> {
  const sent = body === undefined ? {} : { body: type === undefined ? new Blob([body]) : body };
  const res = await fetch(url, { method, ...(type !== undefined && { headers: { 'content-type': type } }), ...sent });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('example-api: what a web page or the environment can make of it (e2e)', () => {
  const apps = new Apps();
  const dir = apps.dir;
  let url: string;
  beforeAll(async () => {
    url = (await apps.local('api')).url;
  });
  afterAll(() => apps.stopAll());

  it('a write whose body is not application/json is refused 415 and writes nothing: an HTML form of another site cannot post a note', async () => {
    const before = (await http(`${url}/notes`)).body.length;
    const forms: Array<[string, string | undefined]> = [
      ['title=planted&body=by+evil.example', 'application/x-www-form-urlencoded'],
      ['{"title":"planted"}', 'text/plain'],
      ['title=planted', 'multipart/form-data; boundary=x'],
      ['{"title":"planted"}', undefined],
    ];
    for (const [body, type] of forms) {
      expect(await raw(`${url}/notes`, 'POST', body, type)).toEqual({
        status: 415, body: { statusCode: 415, error: 'Unsupported Media Type', message: 'write bodies must be application/json' },
      });
    }
    const id = (await http(`${url}/notes`, 'POST', { title: 'mine' })).body.id as string;
    expect((await raw(`${url}/notes/${id}/views`, 'POST', 'by=5', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await raw(`${url}/notes/${id}`, 'PATCH', 'title=x', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await raw(`${url}/notes/${id}`, 'DELETE', 'x', 'text/plain')).status).toBe(415);
    expect((await http(`${url}/notes`)).body.length).toBe(before + 1);
    expect((await http(`${url}/notes/${id}`)).body).toMatchObject({ title: 'mine' });
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype'])('a write body with a top-level key %s is refused 400 as any unknown field is, and writes nothing', async (key) => {
    const before = (await http(`${url}/notes`)).body.length;
    const refusal = { status: 400, body: { statusCode: 400, error: 'Bad Request', message: [`property ${key} should not exist`] } };
    expect(await raw(`${url}/notes`, 'POST', `{"title":"x",${JSON.stringify(key)}:{"a":1}}`, 'application/json')).toEqual(refusal);
    const id = (await http(`${url}/notes`, 'POST', { title: 'mine' })).body.id as string;
    expect(await raw(`${url}/notes/${id}`, 'PATCH', `{${JSON.stringify(key)}:"evil"}`, 'application/json')).toEqual(refusal);
    expect((await http(`${url}/notes/${id}`)).body).toMatchObject({ title: 'mine' });
    expect((await http(`${url}/notes`)).body.length).toBe(before + 1);
    // Nested in a field, the same names are that field's business (the DTO refuses a title that is no string).
    expect((await raw(`${url}/notes`, 'POST', `{"title":{${JSON.stringify(key)}:1}}`, 'application/json')).status).toBe(400);
  });

  it('JSON writes pass, with a charset too, and a write with no body at all (POST views) still counts', async () => {
    const id = (await raw(`${url}/notes`, 'POST', '{"title":"json"}', 'application/json; charset=utf-8')).body.id as string;
    expect(typeof id).toBe('string');
    expect((await raw(`${url}/notes/${id}/views`, 'POST')).body).toEqual({ id, views: 1 });
    expect((await raw(`${url}/notes/${id}`, 'DELETE')).status).toBe(204);
  });

  it('a browser\'s write from a page of another site is refused 403, a body-less POST views included (a no-cors fetch had counted views); one from the same origin (Sec-Fetch-Site first, then Origin against Host as URLs), or from no browser, passes', async () => {
    const id = (await http(`${url}/notes`, 'POST', { title: 'counted' })).body.id as string;
    const post = (headers: Record<string, string>) => fetch(`${url}/notes/${id}/views`, { method: 'POST', headers }).then((r) => r.status);
    expect(await post({ origin: 'http://evil.example' })).toBe(403);
    expect(await post({ origin: 'null' })).toBe(403);
    expect(await post({ 'sec-fetch-site': 'cross-site' })).toBe(403);
    expect(await post({ 'sec-fetch-site': 'same-site' })).toBe(403);
    expect((await http(`${url}/notes/${id}`)).body.views ?? 0).toBe(0);
    expect(await post({ origin: new URL(url).origin, 'sec-fetch-site': 'same-origin' })).toBe(201);
    expect(await post({})).toBe(201);
    // Behind a proxy that rewrites Host, a browser's same-origin write says so: it passes whatever the Origin.
    expect(await post({ origin: 'https://notes.example:8443', 'sec-fetch-site': 'same-origin' })).toBe(201);
    // Without Sec-Fetch-Site the Origin is held to the Host as URLs: case and default ports do not count.
    expect(await post({ origin: new URL(url).origin.toUpperCase().replace('HTTP://', 'http://') })).toBe(201);
    expect((await http(`${url}/notes/${id}`)).body.views).toBe(4);
  });

  it('a note body of 100,000 characters is taken whatever they are (accented, or control characters escaped 6 bytes each as JSON), not refused 413 by a 100 KB body bound', async () => {
    for (const body of ['é'.repeat(100_000), '\u0001'.repeat(100_000)]) {
      const res = await http(`${url}/notes`, 'POST', { title: 'long', body });
      expect(res.status).toBe(201);
      expect((await http(`${url}/notes/${res.body.id}`)).body.body).toBe(body);
    }
  });

  it('PORT is a whole number from 0 to 65535, empty or unset meaning 3000; anything else is refused naming it', () => {
    expect(exampleConfigFromEnv({}).port).toBe(3000);
    expect(exampleConfigFromEnv({ PORT: '' }).port).toBe(3000);
    expect(exampleConfigFromEnv({ PORT: ' 8081 ' }).port).toBe(8081);
    expect(exampleConfigFromEnv({ PORT: '0' }).port).toBe(0);
    for (const bad of ['abc', '0x1F91', '1e3', '-5', '3000.5', '65536', '+80']) {
      expect(() => exampleConfigFromEnv({ PORT: bad })).toThrow(`PORT=${JSON.stringify(bad)}: expected a whole number from 0 to 65535`);
    }
  });

  it('PORT=abc: main.ts prints one line naming PORT and exits 1 before the data directory is made', async () => {
    const path = join(dir, 'never');
    expect(await refused({ PORT: 'abc', SYNCOM_PATH: path })).toEqual({ code: 1, lines: ['example-api: PORT="abc": expected a whole number from 0 to 65535'], made: false });
  }, 60_000);

  it('a port already taken: createExampleApi throws, and its storage is closed (the path opens again, not LOCKED)', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const path = join(dir, 'taken');
    try {
      await expect(createExampleApi({ port, host: '127.0.0.1', path }, false)).rejects.toThrow(/EADDRINUSE/);
      const s = await open({ path });
      await s.close();
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
