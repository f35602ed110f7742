import { originAllowed } from '../../src/gateway/allowed-origins';
import { dialFrom } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';

const HELLO = { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

/**
 * A WebSocket is not covered by CORS: without a check, any page a browser
 * opens may dial a gateway it can reach (a hub on localhost or the intranet)
 * and read and write it. The gateway refuses a handshake whose Origin is
 * neither the gateway's own (the request's Host) nor in allowedOrigins; a
 * client with no Origin (any non-browser client) is not a browser page.
 */
describe('gateway: the Origin of a handshake (e2e)', () => {
  const { sockets, startHub } = gatewayFixture();

  /** Dials, keeps a socket for the fixture to close, and says whether the handshake passed. */
  async function passes(url: string, origin?: string, auth?: object): Promise<boolean> {
    const s = await dialFrom(url, origin, auth);
    if (s instanceof Error) return false;
    sockets.push(s);
    return true;
  }

  it('by default: no Origin and the gateway\'s own origin pass; another site, another port or another host name is refused (403)', async () => {
    const h = await startHub({ options: { access: 'public' } });
    expect(await passes(h.url)).toBe(true);
    expect(await passes(h.url, `http://127.0.0.1:${h.port}`)).toBe(true);
    for (const origin of ['https://evil.example', `http://127.0.0.1:${h.port + 1}`, `http://localhost:${h.port}`, 'null']) {
      expect(await passes(h.url, origin)).toBe(false);
    }
    const refused = await dialFrom(h.url, 'https://evil.example');
    expect(refused).toBeInstanceOf(Error);
  });

  it('a refused Origin never reaches hello; an admitted one greets as any peer', async () => {
    const h = await startHub({ options: { access: 'public' } });
    const own = await dialFrom(h.url, `http://127.0.0.1:${h.port}`);
    if (own instanceof Error) throw own;
    sockets.push(own);
    expect(await own.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
    expect((h.namespace().server.engine as unknown as { clientsCount: number }).clientsCount).toBe(1);
  });

  it('allowedOrigins lists the other origins that may dial (scheme, host and port; a trailing slash or upper case is the same origin)', async () => {
    const h = await startHub({ options: { access: 'public', allowedOrigins: ['http://LOCALHOST:5173/', 'https://app.example'] } });
    expect(await passes(h.url, 'http://localhost:5173')).toBe(true);
    expect(await passes(h.url, 'https://app.example')).toBe(true);
    expect(await passes(h.url, `http://127.0.0.1:${h.port}`)).toBe(true);
    for (const origin of ['http://app.example', 'https://app.example:8443', 'http://localhost:5174', 'https://evil.example']) {
      expect(await passes(h.url, origin)).toBe(false);
    }
  });

  it("allowedOrigins '*' takes any Origin; the default holds under access 'session' too (authorize may read the handshake's cookies)", async () => {
    const any = await startHub({ options: { access: 'public', allowedOrigins: '*' } });
    expect(await passes(any.url, 'https://evil.example')).toBe(true);
    const session = await startHub({ options: { access: 'session', authorize: (_c, hello) => hello.token === 't' } });
    expect(await passes(session.url, 'https://evil.example', { token: 't' })).toBe(false);
    expect(await passes(session.url, undefined, { token: 't' })).toBe(true);
  });

  // Long-polling is held to CORS, unlike a WebSocket: a browser hands a page of another origin the answer to its
  // XHR only when the answer names that origin (with credentials allowed, for a cookie the page sends along).
  it('with long-polling allowed, an allowed page\'s handshake, polls and posts are answered with Access-Control-Allow-Origin naming it; another origin gets 403 and none', async () => {
    const h = await startHub({ transports: ['websocket', 'polling'], options: { access: 'public', allowedOrigins: ['https://app.example'] } });
    const base = `http://127.0.0.1:${h.port}/socket.io/?EIO=4&transport=polling`;
    const from = (origin: string, init: RequestInit = {}, query = '') => fetch(`${base}${query}`, { ...init, headers: { origin, ...init.headers } });
    const cors = (r: Response) => [r.status, r.headers.get('access-control-allow-origin'), r.headers.get('access-control-allow-credentials')];

    const open = await from('https://app.example');
    expect(cors(open)).toEqual([200, 'https://app.example', 'true']);
    const sid = (JSON.parse((await open.text()).slice(1)) as { sid: string }).sid;
    const connect = await from('https://app.example', { method: 'POST', body: '40/syncom,', headers: { 'content-type': 'text/plain;charset=UTF-8' } }, `&sid=${sid}`);
    expect(cors(connect)).toEqual([200, 'https://app.example', 'true']);
    const poll = await from('https://app.example', {}, `&sid=${sid}`);
    expect(cors(poll)).toEqual([200, 'https://app.example', 'true']);
    expect(await poll.text()).toContain('40/syncom,');

    const evil = await from('https://evil.example');
    expect(cors(evil)).toEqual([403, null, null]);
    await evil.text();
    // A WebSocket-only gateway's refusal of long-polling reaches an allowed page too: its link says what to change.
    const ws = await startHub({ options: { access: 'public', allowedOrigins: ['https://app.example'] } });
    const refused = await fetch(`http://127.0.0.1:${ws.port}/socket.io/?EIO=4&transport=polling`, { headers: { origin: 'https://app.example' } });
    expect(cors(refused)).toEqual([400, 'https://app.example', 'true']);
    expect(await refused.text()).toContain('Transport unknown');
    await fetch(`${base}&sid=${sid}`, { method: 'POST', body: '1' }).then((r) => r.text());
  });

  it('an allowedOrigins entry that is no http(s) origin is a mistake of the app: TypeError at start', async () => {
    await expect(startHub({ options: { access: 'public', allowedOrigins: ['localhost:5173'] } })).rejects.toThrow(TypeError);
  });

  it('originAllowed: the default port of the scheme is no port; a Host that does not parse matches nothing', () => {
    expect(originAllowed({ origin: 'https://hub.example', host: 'hub.example:443' })).toBe(true);
    expect(originAllowed({ origin: 'http://hub.example', host: 'HUB.example' })).toBe(true);
    expect(originAllowed({ origin: 'http://[::1]:8000', host: '[::1]:8000' })).toBe(true);
    expect(originAllowed({ origin: 'http://hub.example', host: 'hub.example:8000' })).toBe(false);
    expect(originAllowed({ origin: 'http://hub.example', host: undefined })).toBe(false);
    expect(originAllowed({ origin: 'http://hub.example', host: 'a b' })).toBe(false);
    expect(originAllowed({ origin: undefined, host: 'hub.example' })).toBe(true);
    expect(originAllowed({ origin: 'https://evil.example', host: 'hub.example' }, ['https://evil.example'])).toBe(true);
    expect(originAllowed({ origin: 'https://evil.example', host: 'hub.example' }, '*')).toBe(true);
  });
});
