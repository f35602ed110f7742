import type { Socket as ClientSocket } from 'socket.io-client';
import { formatEventId, type Storage } from 'syncom';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { type TestHub } from '../helpers/hub';
import { gatewayFixture } from '../helpers/fixture';
import { heapAfterGc, internals } from 'syncom/testing';
import { Signal, until } from '../helpers/until';

/**
 * Cycles and connections per run, sized for CI on two cores; `npm run test:hunt` runs the issue's
 * figures (LOAD_CYCLES=10000, LOAD_CONNECTS=1000). The heap bound stays 5 MB: what grows is a
 * constant (about 1 MB of caches filled on first use), not a cost per cycle.
 */
const CYCLES = Number(process.env.LOAD_CYCLES ?? 2_000);
const CONNECTS = Number(process.env.LOAD_CONNECTS ?? 500);
const BURST = 100;
const MB = 1024 * 1024;

type Answer = { ok: boolean; value?: unknown; error?: { code: string } };

const ask = async (socket: ClientSocket, event: string, body: unknown) => (await socket.timeout(10_000).emitWithAck(event, body)) as Answer;

/** What the hub keeps for its peers: sockets, feeds, and the log's listeners (one per feed). */
function held(hub: TestHub) {
  return { sockets: hub.namespace().sockets.size, hosted: hub.storage.sync.hosted().length, listeners: internals(hub.storage).log.appended.size };
}

describe('resources at the socket.io gateway', () => {
  let hub: TestHub | undefined;
  const { storages, startHub } = gatewayFixture();

  /** A socket greeted as `node`, and the hub's epoch (a feed from `<epoch>.0` replays the whole log). */
  async function greeted(h: TestHub, node: string): Promise<{ socket: ClientSocket; from: string }> {
    const socket = await rawSocket(h.url);
    const hello = await ask(socket, 'hello', { node, vector: {}, epoch: 'e', schema: null, scopes: ['*'] });
    return { socket, from: formatEventId((hello.value as { epoch: string }).epoch, 0) };
  }

  it(`${CYCLES} changes subscribe/unsubscribe cycles, each shipping a page, grow the heap by less than 5 MB after gc`, async () => {
    hub = await startHub();
    for (let n = 0; n < 3; n++) await hub.storage.insert({ n });
    const baseline = held(hub);
    const { socket, from } = await greeted(hub, 'cycler');
    const cycle = async (i: number) => {
      const page = new Promise<unknown>((resolve) => socket.once('changes:data', (m: { value: unknown }, ack: (a: Answer) => void) => {
        ack({ ok: true, value: null });
        resolve(m.value);
      }));
      expect(await ask(socket, 'changes', { sub: `s.${i}`, lastEventId: from })).toEqual({ ok: true, value: null });
      expect(await page).toMatchObject({ ops: expect.any(Array) });
      expect(await ask(socket, 'unsubscribe', { sub: `s.${i}` })).toEqual({ ok: true, value: null });
    };
    // Warm up first: the first cycles fill caches (compiled code, socket.io's buffers) that stay.
    for (let i = 0; i < 200; i++) await cycle(i);
    const before = heapAfterGc();
    for (let i = 0; i < CYCLES; i++) await cycle(200 + i);
    const grown = heapAfterGc() - before;
    expect({ ...held(hub), sockets: 0 }).toEqual({ ...baseline, sockets: 0 });
    expect(grown).toBeLessThan(5 * MB);
    socket.disconnect();
  });

  it(`${CONNECTS} connections in bursts of ${BURST}, dropped with pages unacknowledged, leave the hub serving and holding none of them`, async () => {
    hub = await startHub({ options: { limits: { opsPerSecond: 1_000 } } });
    const h = hub;
    await h.storage.insert({ before: true });
    const gone = new Signal();
    h.namespace().on('connection', (s) => s.once('disconnect', () => gone.notify()));
    const baseline = held(h);
    /** One burst: every socket greets, pushes, opens a feed whose page it never acks, then all drop at once. */
    const burst = async (b: number) => {
      const peers = await Promise.all(Array.from({ length: BURST }, (_, i) => greeted(h, `burst-${b}-${i}`)));
      await Promise.all(peers.map(async ({ socket, from }, i) => {
        expect(await ask(socket, 'push', { ops: [1] })).toMatchObject({ ok: true });
        expect(await ask(socket, 'changes', { sub: `b.${i}`, lastEventId: from })).toEqual({ ok: true, value: null });
      }));
      for (const { socket } of peers) socket.disconnect();
      await gone.until(() => h.namespace().sockets.size === 0, `the hub to see burst ${b} go`);
    };
    await burst(-1);
    const before = heapAfterGc();
    for (let b = 0; b < CONNECTS / BURST; b++) await burst(b);
    const grown = heapAfterGc() - before;
    expect(held(h)).toEqual(baseline);
    expect(grown).toBeLessThan(5 * MB);
    // Still serving: a dialer bootstraps, and a write at the hub reaches it through its feed.
    const d = await socketDialer();
    storages.push(d.storage);
    await d.storage.sync.addNode({ url: h.url });
    const id = await h.storage.insert({ after: true });
    await until(async () => (await d.storage.get(id)) !== undefined, [d.storage, h.storage], 'the write after the bursts');
  });
});
