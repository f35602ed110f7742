import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hubConfigFromEnv } from '../src/hub.config';
import { defaultWebDir, WEB_APP_HEADERS, WEB_APP_MISSING } from '../src/web-app';
import { RawClient } from './raw-client';
import { TestHubs } from './test-hubs';

const HTML = '<!doctype html><title>syncom notes</title><script type="module" src="/assets/app.js"></script>';

/** A built web app in miniature: index.html and one hashed-style asset. */
function fakeDist(): string {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), HTML);
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'robots.txt'), 'User-agent: *');
  return dir;
}

async function get(url: string): Promise<{ status: number; type: string; cache: string; text: string; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? '', cache: res.headers.get('cache-control') ?? '', text: await res.text(), headers: res.headers };
}

describe('apps/hub: the web app at / (e2e)', () => {
  const hubs = new TestHubs();
  const dist = fakeDist();
  afterAll(async () => {
    await hubs.stopAll();
    rmSync(dist, { recursive: true, force: true });
  });

  it('looks in apps/web/dist by default; SYNCOM_WEB_DIR points elsewhere, and false (or 0) serves nothing at /', () => {
    expect(defaultWebDir()).toBe(resolve(__dirname, '..', '..', 'web', 'dist'));
    expect(hubConfigFromEnv({}).webDir).toBeUndefined();
    expect(hubConfigFromEnv({ SYNCOM_WEB_DIR: '/srv/web' }).webDir).toBe('/srv/web');
    expect(hubConfigFromEnv({ SYNCOM_WEB_DIR: 'false' }).webDir).toBe(false);
    expect(hubConfigFromEnv({ SYNCOM_WEB_DIR: ' 0 ' }).webDir).toBe(false);
  });

  it('GET / answers index.html (revalidated), its assets are served, and /health, /metrics and socket.io still answer', async () => {
    const hub = await hubs.start('built', { webDir: dist, metrics: true });
    const page = await get(`${hub.url}/`);
    expect(page).toMatchObject({ status: 200, text: HTML, cache: 'no-cache' });
    expect(page.type).toMatch(/^text\/html/);
    expect(await get(`${hub.url}/assets/app.js`)).toMatchObject({ status: 200, text: 'console.log(1)', cache: expect.stringContaining('immutable') });
    const health = await get(`${hub.url}/health`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toMatchObject({ ok: true, id: hub.storage.id });
    expect((await get(`${hub.url}/metrics`)).status).toBe(200);
    (await RawClient.connect(hub.syncomUrl, 't')).close();
  });

  it('every file goes with a policy: its own origin only, no string parsed as markup, never framed, no Referer, no sniffing; only assets/ is cached for good; no X-Powered-By', async () => {
    const hub = await hubs.start('headers', { webDir: dist });
    const [page, asset, other, health] = await Promise.all(['/', '/assets/app.js', '/robots.txt', '/health'].map((p) => get(`${hub.url}${p}`)));
    for (const res of [page, asset, other]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(WEB_APP_HEADERS['Content-Security-Policy']);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).toContain("require-trusted-types-for 'script'; trusted-types 'none'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
    expect([page.cache, asset.cache, other.cache]).toEqual(['no-cache', 'public, max-age=31536000, immutable', 'no-cache']);
    for (const res of [page, asset, health]) expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('nothing outside the folder is served: a path climbing out of it is refused', async () => {
    const hub = await hubs.start('climb', { webDir: join(dist, 'assets') });
    // %2F is not a separator to the URL parser, so the request reaches the server with its '..' in place.
    const res = await get(`${hub.url}/..%2Findex.html`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.text).not.toContain('<title>');
  });

  it('without a build, GET / answers 404 with a one-line hint, and /health still works', async () => {
    const hub = await hubs.start('unbuilt', { webDir: join(dist, 'missing') });
    expect(await get(`${hub.url}/`)).toMatchObject({ status: 404, text: WEB_APP_MISSING });
    expect(WEB_APP_MISSING.trim().split('\n')).toHaveLength(1);
    expect((await get(`${hub.url}/health`)).status).toBe(200);
  });

  it('webDir false serves nothing at / (Nest\'s own 404)', async () => {
    const hub = await hubs.start('off', { webDir: false });
    const res = await get(`${hub.url}/`);
    expect(res.status).toBe(404);
    expect(res.text).not.toBe(WEB_APP_MISSING);
  });
});
