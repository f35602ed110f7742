import type { Socket as ClientSocket } from 'socket.io-client';
import { newSigningKey } from 'syncom/testing';
import { hubConfigFromEnv } from '../src/hub.config';
import { hubSummary } from '../src/hub-summary';
import { dialFrom } from '../../../libs/syncom-nest/test/helpers/dialer';
import { TestHubs } from './test-hubs';

const HELLO = { node: newSigningKey().node, vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

/**
 * An open hub (no SYNCOM_TOKENS) is reachable by the operator's own browser,
 * so by any page that browser opens: a WebSocket is not held to CORS. The
 * hub takes a browser's handshake from its own origin (the page it serves,
 * or a dev server that proxies to it keeping the Host) or one listed in
 * SYNCOM_ALLOWED_ORIGINS; a hub with tokens takes any origin unless the list
 * is set, since a page of another site cannot know a token.
 */
describe('apps/hub: SYNCOM_ALLOWED_ORIGINS and the Origin of a handshake (e2e)', () => {
  const hubs = new TestHubs();
  const sockets: ClientSocket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.close();
    await hubs.stopAll();
  });

  async function passes(url: string, origin?: string, token?: string): Promise<boolean> {
    const s = await dialFrom(url, origin, token === undefined ? undefined : { token });
    if (s instanceof Error) return false;
    sockets.push(s);
    return true;
  }

  it('reads SYNCOM_ALLOWED_ORIGINS: unset (the default), "*", a list of origins, or empty (its own origin only); anything else is refused', () => {
    expect(hubConfigFromEnv({})).not.toHaveProperty('allowedOrigins');
    expect(hubConfigFromEnv({ SYNCOM_ALLOWED_ORIGINS: ' * ' }).allowedOrigins).toBe('*');
    expect(hubConfigFromEnv({ SYNCOM_ALLOWED_ORIGINS: 'http://localhost:5173, https://App.example/' }).allowedOrigins).toEqual(['http://localhost:5173', 'https://app.example']);
    expect(hubConfigFromEnv({ SYNCOM_ALLOWED_ORIGINS: '' }).allowedOrigins).toEqual([]);
    for (const bad of ['localhost:5173', 'ftp://x.example', 'http://x.example/app', '*,http://x.example']) {
      expect(() => hubConfigFromEnv({ SYNCOM_ALLOWED_ORIGINS: bad })).toThrow(expect.objectContaining({ code: 'HUB_CONFIG', variable: 'SYNCOM_ALLOWED_ORIGINS' }));
    }
  });

  it('an open hub refuses a page of another site (cross-site WebSocket); its own origin and a client with no Origin pass', async () => {
    const hub = await hubs.start('open', { tokens: [], webDir: false });
    const port = new URL(hub.url).port;
    expect(await passes(hub.syncomUrl, 'https://evil.example')).toBe(false);
    expect(await passes(hub.syncomUrl, `http://localhost:${port}`)).toBe(false);
    const own = await dialFrom(hub.syncomUrl, `http://127.0.0.1:${port}`);
    if (own instanceof Error) throw own;
    sockets.push(own);
    expect(await own.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
    expect(await passes(hub.syncomUrl)).toBe(true);
  });

  it('an open hub takes the origins SYNCOM_ALLOWED_ORIGINS lists (a dev server on another port), and no other', async () => {
    const hub = await hubs.start('listed', { tokens: [], allowedOrigins: ['http://localhost:5173'], webDir: false });
    expect(await passes(hub.syncomUrl, 'http://localhost:5173')).toBe(true);
    expect(await passes(hub.syncomUrl, 'https://evil.example')).toBe(false);
  });

  it('a hub with tokens takes a page of any origin by default (the browser tests\' page server is another port); a list, even empty, holds it too', async () => {
    const hub = await hubs.start('tokens');
    expect(await passes(hub.syncomUrl, 'http://127.0.0.1:1', 't')).toBe(true);
    expect(await passes(hub.syncomUrl, 'https://evil.example')).toBe(false); // no token
    const strict = await hubs.start('tokens-strict', { allowedOrigins: [] });
    expect(await passes(strict.syncomUrl, 'https://evil.example', 't')).toBe(false);
    expect(await passes(strict.syncomUrl, undefined, 't')).toBe(true);
  });

  it('the start says which browser origins may dial', () => {
    const url = 'http://127.0.0.1:8000';
    expect(hubSummary(hubConfigFromEnv({}), url)[0]).toContain('browsers from this origin only');
    expect(hubSummary(hubConfigFromEnv({ SYNCOM_TOKENS: 't' }), url)[0]).toContain('browsers from any origin');
    expect(hubSummary(hubConfigFromEnv({ SYNCOM_ALLOWED_ORIGINS: 'http://localhost:5173' }), url)[0]).toContain('browsers from this origin and http://localhost:5173');
  });
});
