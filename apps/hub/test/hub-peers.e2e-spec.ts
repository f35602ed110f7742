import type { INestApplication, LoggerService } from '@nestjs/common';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { Storage } from 'syncom';
import { Apps, until } from '../../example-api/test/apps';
import { createHub } from '../src/create-hub';
import { type HubConfig, hubConfigFromEnv } from '../src/hub.config';
import { freePorts } from '../../../scripts/free-port';

const io = { reconnectionDelay: 50, reconnectionDelayMax: 200 };

describe('apps/hub: SYNCOM_PEERS and SYNCOM_REDIS_URL (e2e)', () => {
  const apps = new Apps();
  const running = new Set<INestApplication>();
  afterAll(async () => {
    for (const app of running) await app.close();
    await apps.stopAll();
  });

  /** A hub on a known port (its url is in the others' peers before it listens). */
  async function hub(name: string, port: number, o: Partial<HubConfig> = {}, logger: LoggerService | false = false) {
    const app = await createHub({ port, host: '127.0.0.1', path: join(apps.dir, name), tokens: ['t'], io, ...o }, logger);
    running.add(app);
    return { app, storage: app.get(Storage) };
  }

  async function close(app: INestApplication): Promise<void> {
    running.delete(app);
    await app.close();
  }

  const syncomUrl = (port: number) => `http://127.0.0.1:${port}/syncom`;

  it('reads SYNCOM_PEERS (comma-separated, trimmed, once each), SYNCOM_PEER_TOKEN and SYNCOM_REDIS_URL', () => {
    const env = { SYNCOM_PEERS: ' http://a:1/syncom, http://b:2/syncom,,http://a:1/syncom', SYNCOM_PEER_TOKEN: 'p', SYNCOM_REDIS_URL: 'redis://r:6379' };
    expect(hubConfigFromEnv(env)).toMatchObject({ peers: ['http://a:1/syncom', 'http://b:2/syncom'], peerToken: 'p', redisUrl: 'redis://r:6379' });
    const bare = hubConfigFromEnv({});
    expect(bare.peers).toEqual([]);
    expect(bare).not.toHaveProperty('peerToken');
    expect(bare).not.toHaveProperty('redisUrl');
  });

  it('a hub dials its peers with the first of its tokens by default, or SYNCOM_PEER_TOKEN; the registry follows the list', async () => {
    const [pa, pb, pc] = await freePorts(3);
    const b = await hub('b', pb, { tokens: ['shared', 'other'] });
    const c = await hub('c', pc, { tokens: ['for-c'] });
    let a = await hub('a', pa, { tokens: ['shared'], peers: [syncomUrl(pb)] });
    const connected = (s: Storage, url: string) => s.sync.peers().some((p) => p.url === url && p.connected);
    await until(() => connected(a.storage, syncomUrl(pb)), [a.storage]);
    expect(a.storage.sync.listNodes().map((n) => [n.url, n.token])).toEqual([[syncomUrl(pb), 'shared']]);

    // Restarted with another list: b, no longer listed, is removed; c is dialed with the peer token.
    await close(a.app);
    a = await hub('a', pa, { tokens: ['shared'], peers: [syncomUrl(pc)], peerToken: 'for-c' });
    await until(() => connected(a.storage, syncomUrl(pc)), [a.storage]);
    expect(a.storage.sync.listNodes().map((n) => [n.url, n.token])).toEqual([[syncomUrl(pc), 'for-c']]);
    const id = await c.storage.insert({ $type: 'Note', title: 'at c' });
    await until(() => a.storage.has(id), [a.storage]);
  });

  it('a hub that finds its own url among its peers (same node id at hello) stops dialing it, and tries again at its next start', async () => {
    const [pa, pb] = await freePorts(2);
    const peers = [syncomUrl(pa), syncomUrl(pb)];
    // Nest's Logger is one per process: the last app created sets it, here a's, which keeps the warnings.
    const warnings: string[] = [];
    const logger: LoggerService = { log: () => undefined, error: () => undefined, warn: (m: unknown) => void warnings.push(String(m)) };
    const itself = () => warnings.filter((w) => w.includes(`${syncomUrl(pa)} is this hub itself`)).length;
    const b = await hub('self-b', pb, { peers });
    let a = await hub('self-a', pa, { peers }, logger);
    const own = (s: Storage, port: number) => s.sync.listNodes().find((n) => n.url === syncomUrl(port));
    const settled = (s: Storage, self: number, other: number) => own(s, self)?.enabled === false
      && s.sync.peers().some((p) => p.url === syncomUrl(other) && p.connected);
    await until(() => settled(a.storage, pa, pb) && settled(b.storage, pb, pa), [a.storage, b.storage]);
    expect(itself()).toBe(1);
    // The same list on every hub still makes a mesh: a write at one reaches the other.
    const id = await a.storage.insert({ $type: 'Note', title: 'from a' });
    await until(() => b.storage.has(id), [b.storage]);

    await close(a.app);
    a = await hub('self-a', pa, { peers }, logger);
    await until(() => itself() === 2 && settled(a.storage, pa, pb), [a.storage]);
  });

  it('a peer hub out of reach is one warning a failure streak, naming its url without credentials and the error code; it connecting is one line', async () => {
    const [pa, pb] = await freePorts(2);
    const secret = 'peer-secret-8d1f';
    const url = `http://op:${secret}@127.0.0.1:${pb}/syncom?key=${secret}`;
    const shown = syncomUrl(pb);
    const lines: string[] = [];
    const waiting = new Set<() => void>();
    const line = (level: string) => (m: unknown) => {
      lines.push(`${level} ${String(m)}`);
      for (const w of waiting) w();
    };
    // Nest's Logger is one per process: every hub here is given this one.
    const logger: LoggerService = { log: line('log'), warn: line('warn'), error: line('error') };
    const about = (what: RegExp) => lines.filter((l) => l.includes(shown) && what.test(l));
    const unreachable = () => about(/^warn peer hub \S+ unreachable: ECONNREFUSED\b/);
    const connected = () => about(/^log peer hub \S+ connected/);
    /** Resolves once `check` holds, re-checked at each log line (or each connection the stand-in below takes). */
    const seen = (check: () => boolean) => new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => { waiting.delete(test); reject(new Error(`not logged; lines: ${JSON.stringify(lines.filter((l) => l.includes(shown)))}`)); }, 10_000);
      const test = () => { if (check()) { clearTimeout(t); waiting.delete(test); resolve(); } };
      waiting.add(test);
      test();
    });

    // Nothing listens on pb: refused at TCP.
    await hub('reach-a', pa, { peers: [url], peerToken: 't' }, logger);
    await seen(() => unreachable().length === 1);
    // Something on pb that drops every connection: more failed attempts, no more lines (the streak goes on).
    let dropped = 0;
    const dropper = createServer((c: Socket) => { dropped++; c.destroy(); for (const w of waiting) w(); });
    await new Promise<void>((resolve) => dropper.listen(pb, '127.0.0.1', resolve));
    await seen(() => dropped >= 3);
    await new Promise((resolve) => dropper.close(resolve));
    expect(about(/^warn /)).toHaveLength(1);

    const b = await hub('reach-b', pb, {}, logger);
    await seen(() => connected().length === 1);
    // Gone again: a new streak, one more warning.
    await close(b.app);
    await seen(() => unreachable().length === 2);
    expect(connected()).toHaveLength(1);
    expect(lines.filter((l) => l.includes(secret))).toEqual([]);
  });

  it('SYNCOM_REDIS_URL that reaches no Redis: the hub does not start, and says why', async () => {
    const [nothing] = await freePorts(1);
    await expect(hub('no-redis', 0, { redisUrl: `redis://127.0.0.1:${nothing}` })).rejects.toThrow(/cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(SYNCOM_REDIS_URL\)/);
  });
});
