import type { INestApplication } from '@nestjs/common';
import { join } from 'node:path';
import { Storage, streamKey } from 'syncom';
import { scopeRoom, SyncomGateway } from 'syncom-nest';
import { Apps, http, type Running, until } from '../../example-api/test/apps';
import { createHub } from '../src/create-hub';
import { freePorts } from '../../../scripts/free-port';
import { ClusterLoad, type ClusterSummary } from './cluster-load';
import { describeLoop, type LoopFigures, LoopWatch, probeHub } from './cluster-figures';
import { type HubProcess, spawnHub } from './hub-process';
import { noteRedisSkip, type RedisServer, redisSkipped, skipRedis, startRedis } from './redis-server';

noteRedisSkip('cluster.e2e-spec');

/** The socket.io-client options of the in-process hubs' links: a peer down comes back within 200 ms. */
const io = { reconnectionDelay: 50, reconnectionDelayMax: 200 };
const room = scopeRoom('*');
/**
 * Raw peers on each hub, and the window's length (see ClusterLoad): those of hubs 1 and 2 write, those of
 * hub 3 only read, and must redial and resubscribe when it is killed and restarted.
 */
const PEERS = Number(process.env.CLUSTER_PEERS ?? 4);
const SECONDS = Number(process.env.CLUSTER_SECONDS ?? 2);
/**
 * How long the cluster and its peers may take to converge after the window, and the whole load test:
 * a raw peer of hub 3 redials with a backoff that reaches 30 s (up to 45 s spread) while hub 3 restarts.
 */
const SETTLE_MS = Math.max(60_000, PEERS * 100);
const TEST_MS = 300_000 + PEERS * 400;
/** Every load peer shares token 't': no per-token socket cap or rate (the load tool's hub runs the same). */
const UNCAPPED = { SYNCOM_SOCKETS_PER_TOKEN: '0', SYNCOM_OPS_PER_SECOND: '0' };

/**
 * A vector's plain streams: the writes themselves. Streams `key<F` hold the merge and advance ops of
 * a bootstrap from F, which never travel back to F (BOOT-10), so vectors differ there by design.
 */
function plain(vector: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(vector).filter(([k]) => !k.includes('<')));
}

const sum = (vector: Record<string, number>) => Object.values(vector).reduce((a, b) => a + b, 0);

/** A percentile: the histogram's buckets stop at 120 s, so a longer one reads only as more than that. */
const pct = (v: number) => (v > 120_000 ? '>120000' : v.toFixed(0));

/** What the load test measured, on one line per figure kind. */
function report(load: ClusterLoad, d: ClusterSummary, loops: [LoopFigures, LoopFigures], ms: { converged: number; span: number; down: number; late: number }): void {
  const offered = load.writers * load.writes;
  const acked = Object.values(load.expected()).reduce((a, b) => a + b, 0);
  process.stderr.write([
    `cluster load: ${load.perHub} peers on each of 3 hubs (${load.peers}; ${load.writers} writing, on hubs 1 and 2), ${load.seconds} s window, hub 3 killed and listening again ${(ms.down / 1000).toFixed(1)} s later`,
    `  writes offered ${offered}, acked ${acked}; deliveries ${d.count} of ${d.expected}, holes ${d.holes}, errors ${JSON.stringify(d.errors)}`,
    `  delivery from ack p50 ${pct(d.p50)} ms, p99 ${pct(d.p99)} ms, max ${d.max.toFixed(0)} ms (p99 to the peers of hub 1, 2, 3: ${d.byHub.map((h) => pct(h.p99)).join(', ')} ms); ${ms.late === 0 ? 'every peer' : `all but ${ms.late} peers`} converged ${(ms.converged / 1000).toFixed(1)} s after the window`,
    `  hubs 1 and 2 (this process): ${describeLoop(loops[0])}; hub 3 (since its restart): ${describeLoop(loops[1])}; peer processes' CPU ${(d.cpuMs / 1000).toFixed(1)} s (${(d.cpuMs / ms.span).toFixed(2)} cores over their ${(ms.span / 1000).toFixed(0)} s)`,
  ].join('\n') + '\n');
}

/** The ids of the sockets in the scope room, cluster-wide or (local) this hub's only. */
async function roomSockets(app: INestApplication, local = false): Promise<Set<string>> {
  const server = app.get(SyncomGateway).server!;
  const sockets = await (local ? server.local : server).in(room).fetchSockets();
  return new Set(sockets.map((s) => s.id));
}

/**
 * Three hubs on loopback, meshed by SYNCOM_PEERS (each lists the other two),
 * sharing one redis-server through SYNCOM_REDIS_URL; an example-api client
 * on each. Hubs 1 and 2 run in this process (their storages' events drive
 * `until`, their gateways answer fetchSockets); hub 3 is a child process
 * started from main.ts with the environment an operator writes, so it can be
 * killed with SIGKILL and restarted on the same port and path.
 */
describe('several hubs as one service (e2e)', () => {
  const apps = new Apps();
  const inProcess: INestApplication[] = [];
  const written: string[] = [];
  let redis: RedisServer | undefined;
  let urls: string[];
  let hubs: Storage[];
  let third: HubProcess;
  let clients: Running[];

  /** Hub i's base url (without /syncom). */
  const base = (i: number) => urls[i].replace('/syncom', '');
  const thirdEnv = () => ({
    PORT: new URL(urls[2]).port, SYNCOM_PATH: join(apps.dir, 'hub3'), SYNCOM_TOKENS: 't', SYNCOM_HEALTH_DETAIL: '1', SYNCOM_LOAD_PROBE: '1',
    SYNCOM_PEERS: `${urls[0]},${urls[1]}`, ...(redis && { SYNCOM_REDIS_URL: redis.url }), ...UNCAPPED,
  });

  async function startHub(i: number): Promise<Storage> {
    const peers = urls.filter((_, j) => j !== i);
    const port = Number(new URL(urls[i]).port);
    const app = await createHub({ port, host: '127.0.0.1', path: join(apps.dir, `hub${i + 1}`), tokens: ['t'], peers, io, redisUrl: redis?.url, limits: { socketsPerToken: 0, opsPerSecond: 0 } }, false);
    inProcess.push(app);
    return app.get(Storage);
  }

  /** One note written through each client's REST API. */
  async function writeOnEach(round: string): Promise<void> {
    for (const [i, c] of clients.entries()) {
      const res = await http(`${c.url}/notes`, 'POST', { title: `${round} at client ${i + 1}` });
      expect(res.status).toBe(201);
      written.push(res.body.id);
    }
  }

  const holdsAll = async (s: Storage) => (await Promise.all(written.map((id) => s.has(id)))).every(Boolean);
  const allHoldAll = async (ss: Storage[]) => (await Promise.all(ss.map(holdsAll))).every(Boolean);

  beforeAll(async () => {
    if (!skipRedis) redis = await startRedis();
    urls = (await freePorts(3)).map((p) => `http://127.0.0.1:${p}/syncom`);
    hubs = [await startHub(0), await startHub(1)];
    third = await spawnHub(thirdEnv());
    clients = [await apps.api('a', urls[0]), await apps.api('b', urls[1]), await apps.api('c', urls[2])];
  });

  afterAll(async () => {
    await third?.kill();
    for (const app of inProcess) await app.close();
    await apps.stopAll();
    await redis?.stop();
  });

  it('a write at any hub reaches every hub and every client', async () => {
    const all = [...hubs, ...clients.map((c) => c.storage)];
    // Two rounds: a fresh client's first contact is a bootstrap; the second round reaches it through its feed.
    for (const round of ['first', 'second']) {
      await writeOnEach(round);
      await until(() => allHoldAll(all), all);
    }
    // Client c dials hub 3 only: it holding every note means hub 3 relayed them both ways.
    const health = (await http(`${base(2)}/health`)).body;
    expect(plain(health.vector)).toEqual(plain(hubs[0].replica.vector));
    expect(health.peers.map((p: { url: string }) => p.url).sort()).toEqual([urls[0], urls[1]].sort());
  });

  it('relayed traffic settles: each node logged each op once, and no dialer has anything left to push', async () => {
    const nodes = [...hubs, ...clients.map((c) => c.storage)];
    // Relays are driven by appends, and a duplicate is never appended: a loop would show as an op
    // logged twice. Besides the writes, a log holds only the merge/advance ops of bootstraps (from set).
    const idle = () => nodes.every((s) => s.sync.peers().every((p) => p.connected && p.pending === 0 && !p.behind));
    // A hang guard, not a timing: relays across three hubs took past 20 s on a loaded two-core machine.
    await until(idle, nodes, 90_000);
    for (const s of nodes) {
      const entries = s.replica.read(s.replica.floor);
      expect(new Set(entries.map((e) => `${streamKey(e.op.origin, e.op.scope, e.op.from)}#${e.op.seq}`)).size).toBe(entries.length);
      // A note reaches a node as its own op, or folded into a bootstrap's merge when the node's first
      // contact raced the write: either way it is logged, and nothing but the notes is logged as a write.
      const plainIds = new Set(entries.filter((e) => e.op.from === undefined).map((e) => e.op.id));
      for (const id of plainIds) expect(written).toContain(id);
      const loggedIds = new Set(entries.map((e) => e.op.id));
      expect(written.filter((id) => !loggedIds.has(id))).toEqual([]);
    }
  }, 120_000);

  /** Hubs 1 and 2 each see, through Redis, their own subscribers, each other's, and hub 3's (another process). */
  async function expectClusterView(): Promise<void> {
    const [one, two] = inProcess;
    const before = new Set([...await roomSockets(one, true), ...await roomSockets(two, true)]);
    const seen = [await roomSockets(one), await roomSockets(two)];
    const after = new Set([...await roomSockets(one, true), ...await roomSockets(two, true)]);
    for (const ids of seen) {
      for (const id of before) expect(ids).toContain(id);
      // Client c dials hub 3 only, and its feed there is open (it took the last round from it).
      expect([...ids].filter((id) => !after.has(id)).length).toBeGreaterThan(0);
    }
  }

  const redisTitle = `SYNCOM_REDIS_URL: fetchSockets() on one hub sees the subscribers of the other hubs${skipRedis ? ` (skipped: ${redisSkipped})` : ''}`;
  (skipRedis ? it.skip : it)(redisTitle, async () => {
    await expectClusterView();
  });

  it(`a hub killed with SIGKILL during a write window (${PEERS} raw peers on each hub, ${SECONDS} s) and restarted on its port and path loses nothing; every peer converges, its own peers by redialing it`, async () => {
    const load = new ClusterLoad(PEERS, SECONDS, 2);
    const loop = new LoopWatch();
    const all = [...hubs, ...clients.map((c) => c.storage)];
    const t0 = performance.now();
    try {
      await load.connect(urls, 't', [urls[2]]);
      loop.start();
      const window = load.write();
      const killedAt = performance.now();
      await third.kill();
      // Client c's hub is down: its write stays local until hub 3 is back.
      await writeOnEach('while hub 3 was down');
      const restartedAt = performance.now();
      third = await spawnHub(thirdEnv());
      const down = performance.now() - killedAt;
      await window;
      const closed = performance.now();
      await until(() => allHoldAll(all), all, SETTLE_MS);
      const expected = load.expected();
      const due = Object.entries(expected);
      const holdsLoad = (v: Record<string, number>) => due.every(([k, n]) => (v[k] ?? 0) >= n);
      await until(() => hubs.every((h) => holdsLoad(h.replica.vector)), hubs, SETTLE_MS);
      // The writes themselves: a bootstrap's merge streams (key<F) are the hubs' own and do not reach every feed.
      const late = await load.notConverged(plain(hubs[0].replica.vector), SETTLE_MS);
      const convergedMs = performance.now() - closed;
      const d = load.summary();
      report(load, d, [loop.figures(), await probeHub(base(2), restartedAt)], { converged: convergedMs, span: performance.now() - t0, down, late });
      expect(late).toBe(0);
      expect([d.count, d.holes]).toEqual([d.expected, 0]);
      // No write refused or failed, no feed refused: besides hub 3's peers losing it and redialing, a feed
      // whose acks came late (a starved peer process) is ended by its hub (ACK_TIMEOUT) and resumed from
      // the last page taken: nothing is lost then.
      const recovered = (code: string) => ['redialed', 'resubscribed', 'feed ACK_TIMEOUT'].includes(code) || code.startsWith('disconnect ');
      expect(Object.keys(d.errors).filter((code) => !recovered(code))).toEqual([]);
      expect(d.errors.redialed).toBeGreaterThanOrEqual(PEERS);
    } finally {
      await load.close();
    }
    await writeOnEach('after the restart');
    await until(() => allHoldAll(all), all);
    const health = (await http(`${base(2)}/health`)).body;
    expect(plain(health.vector)).toEqual(plain(hubs[0].replica.vector));
    expect(sum(plain(health.vector))).toBe(written.length + sum(load.expected()));
    // The restarted hub is back in the Redis cluster view.
    if (!skipRedis) await expectClusterView();
  }, TEST_MS);
});
