import { internals } from '../../src/testing/internals';
import { applyPeerOps, createMemoryBackend, createMemoryLink, type HostUnit, open, type Storage, type SyncLink, SyncomError } from '../../src';
import type { MemoryLink } from '../../src/link';
import { opStreamKey } from '../../src/op/types';
import { closeAll, dialer, hostAndDialer, hub, Net, node, seeded, until } from '../sync/helpers';
import { schemaAt } from './model-schema';

const URL = 'memory://h';
const via = (s: Storage) => ({ via: { url: 'memory://x', node: s.id } });

/** Links to hosts g and h at G and H, made by `connect` and kept in `links`; h's starts cut (restore() brings it up). */
function twoHosts(g: HostUnit, h: HostUnit) {
  const [G, H] = ['memory://g', 'memory://h'];
  const links = new Map<string, MemoryLink>();
  const connect = (n: { url: string }) => {
    const link = createMemoryLink(n.url === G ? g : h);
    if (n.url === H) link.cut();
    links.set(n.url, link);
    return link;
  };
  return { G, H, links, connect };
}

/** Engine bugs the four-node model (model-faults.spec.ts) found, each pinned by a fixed sequence on the memory link. */
describe('found by the four-node model', () => {
  it('BOOT-5: a dialer whose host took an op between its hello and its snapshot is in sync once the bootstrap ends (synced() resolves)', async () => {
    const h = await hub();
    const x = await node();
    await x.set('a', { n: 1 });
    await x.set('b', { n: 2 });
    const [x1, x2] = internals(x).log.read(0).map((e) => e.op);
    await applyPeerOps(h.s, [x1], via(x));
    let taken = false;
    // The host takes x's second op after answering the dialer's hello and before its snapshot: the snapshot's vector
    // (adopted, BOOT-5) names it while the hello's did not.
    const connect = (): SyncLink => {
      const inner = createMemoryLink(h.unit);
      return {
        call: async (m, a) => {
          if (m === 'snapshot' && !taken) {
            taken = true;
            await applyPeerOps(h.s, [x2], via(x));
          }
          return inner.call(m, a);
        },
        subscribe: (m, a, o) => inner.subscribe(m, a, o),
        on: (e, l) => inner.on(e, l),
        off: (e, l) => inner.off(e, l),
        close: () => inner.close(),
      };
    };
    const d = await node({ sync: { connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    // Bounded only so that a failure reports: in sync, it resolves as soon as the bootstrap's event fires.
    await expect(d.sync.synced(URL, { timeout: 5_000 })).resolves.toBeUndefined();
    expect(taken).toBe(true);
    expect(await d.get('b')).toEqual({ n: 2 });
    expect(internals(d).log.vector[x.id]).toBe(2);
    await closeAll(d, x, h.s);
  });

  it('BOOT-11: a dialer whose host bootstraps from another host meanwhile is in sync once it holds what the host adopted (synced() resolves)', async () => {
    const net = new Net();
    const g = await hub();
    net.units.set('memory://g', g.unit);
    await g.s.set('a', { n: 1 });
    await g.s.set('b', { n: 2 });
    const h = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    net.units.set(URL, h.sync.unit({ access: 'public' }));
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 5_000 });
    // h joins g's records as merges and adopts g's vector as an advance of its own, which its feed serves to d (granted, BOOT-11).
    await h.sync.addNode({ url: 'memory://g', token: 't' });
    await h.sync.synced('memory://g', { timeout: 5_000 });
    await until(async () => (await d.get('b')) !== undefined, [d]);
    expect(internals(d).log.vector[g.s.id]).toBe(2);
    await expect(d.sync.synced(URL, { timeout: 5_000 })).resolves.toBeUndefined();
    expect(d.sync.peers()[0]).toMatchObject({ pending: 0, behind: false, incoming: 0 });
    await closeAll(d, h, g.s);
  });

  it('LOG-23 BOOT-5: a node restored from an older copy serves its next own ops to a dialer that bootstrapped from it after the REWOUND', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://hub', h.unit);
    const backend = createMemoryBackend();
    // r dials the hub and hosts a unit of its own at URL (a dialer reaches it there).
    const start = async (disk: typeof backend) => {
      const s = await open({ path: 'r', backend: disk, sync: { connect: net.connect, antiEntropyInterval: 0 } });
      net.units.set(URL, s.sync.unit({ access: 'public' }));
      return s;
    };
    let r = await start(backend);
    await r.sync.addNode({ url: 'memory://hub', token: 't' });
    await r.set('a', { n: 1 });
    await r.sync.synced('memory://hub', { timeout: 5_000 });
    await r.close();
    const older = backend.snapshot();
    r = await start(backend);
    await r.set('b', { n: 2 });
    await r.sync.synced('memory://hub', { timeout: 5_000 });
    await r.close();
    r = await start(createMemoryBackend({ from: older }));
    const errors: SyncomError[] = [];
    r.sync.on('error', (e) => errors.push(e));
    await r.sync.synced('memory://hub', { timeout: 5_000 });
    expect(errors.map((e) => e.code)).toEqual(['REWOUND']);
    // r's stream runs to 2 with no op of seq 2 in its log (LOG-23): a snapshot must say so.
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 5_000 });
    expect(await d.get('b')).toEqual({ n: 2 });
    await r.set('c', { n: 3 });
    await until(async () => (await d.get('c')) !== undefined, [d, r], 5_000);
    expect(internals(d).log.vector[r.id]).toBe(3);
    await closeAll(d, r, h.s);
  });

  it('SCOPE-20: a delete that wins over a concurrent move places the tombstone where the delete declares, on both nodes; a reconciliation then logs nothing', async () => {
    const scope = (_id: string, data: Record<string, unknown>): string => (typeof data.$s === 'string' ? data.$s : '*');
    let hNow = 1_000_000;
    let dNow = 1_000_000;
    const { h, d } = await hostAndDialer(URL, { hub: { now: () => hNow, sync: { scope } }, dialer: { now: () => dNow, sync: { scope } } });
    await d.sync.addNode({ url: URL, token: 't', scopes: ['A', 'B'] });
    await d.set('r', { a: 0 });
    await d.sync.synced(URL, { timeout: 5_000 });
    // Concurrent, apart: d moves r to B; h deletes it later, where it holds it ('*'). The delete wins on both.
    await d.sync.enableNode(URL, false);
    [dNow, hNow] = [1_000_001, 1_000_005];
    await d.set('r', { a: 2, $s: 'B' });
    await h.s.delete('r');
    await d.sync.enableNode(URL, true);
    await d.sync.synced(URL, { timeout: 5_000 });
    await until(() => internals(d).committer.current('r')?.del === true, [d], 5_000);
    // The tombstone had stayed in B at d (where the move landed first) and in '*' at h.
    expect([internals(h.s).scopes.scopeOf('r'), internals(d).scopes.scopeOf('r')]).toEqual(['*', '*']);
    const head = internals(d).log.head;
    await d.sync.forceSync();
    await d.sync.synced(URL, { timeout: 5_000 });
    // Reconciliation found the two alike: it had joined h's tombstone and logged a merge of it in B.
    expect(internals(d).log.head).toBe(head);
    await closeAll(d, h.s);
  });

  it('LIFE-21 LIFE-22: a push refused 428 while the feed is open greets once: the feed the fresh hello ended is not greeted for again after a newer one opened', async () => {
    const h = await hub();
    const calls: string[] = [];
    let refuse = false;
    // The host as the link sees it, one push answered 428 (a second hello of this node made a new session there:
    // the model's copied hello, or a push on a new connection beside the reconnect's hello).
    const unit: HostUnit = {
      access: h.unit.access,
      call: async (m, a, c) => {
        calls.push(m);
        if (m === 'push' && refuse) {
          refuse = false;
          throw new SyncomError('HELLO_REQUIRED', 'greet again', { status: 428 });
        }
        return h.unit.call(m, a, c);
      },
      subscribe: (m, a, c, o) => {
        calls.push('subscribe');
        return h.unit.subscribe(m, a, c, { ...o, onError: (e) => (calls.push(`feed ${(e as SyncomError).status}`), o.onError?.(e)) });
      },
      stream: (id, c) => h.unit.stream(id, c),
      disconnect: (c) => h.unit.disconnect(c),
    };
    const link = createMemoryLink(unit);
    const d = await node({ sync: { connect: () => link, antiEntropyInterval: 0 } });
    const errors: string[] = [];
    d.sync.on('error', (e) => errors.push(e.code));
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 5_000 });
    calls.length = 0;
    refuse = true;
    await d.set('x', { n: 1 });
    await link.settle();
    await d.sync.synced(URL, { timeout: 5_000 });
    await link.settle();
    // One fresh hello ends the open feed (428) and opens another; greeting again for the ended one ended the new
    // one in turn: the dialer greeted twice and was left unsubscribed, with no error, deaf to the host.
    expect(calls).toEqual(['push', 'hello', 'feed 428', 'push', 'subscribe']);
    expect(d.sync.peers()[0]).toMatchObject({ subscribed: true, lastError: null });
    await h.s.set('y', { n: 2 });
    await until(async () => (await d.get('y')) !== undefined, [d, h.s], 5_000);
    expect(errors).toEqual([]);
    await closeAll(d, h.s);
  });

  it('GUAR-26 BOOT-5 BOOT-6: a dialer bootstrapping from a host that holds an op for a newer schema gets that op (its records do not hold it)', async () => {
    const h = await hub({}, { schema: schemaAt(1) });
    const x = await node({ schema: schemaAt(2) });
    await x.set('r', { a: 1 });
    await h.s.set('q', { a: 2 });
    await applyPeerOps(h.s, internals(x).log.read(0).map((e) => e.op), via(x));
    await h.s.set('z', { a: 3 });
    expect(h.s.sync.schemaInfo()?.held.count).toBe(1);
    // d knows version 2: the host's vector named x's op, which no page carried, and d took it for one it had.
    const d = await node({ schema: schemaAt(2), sync: { connect: () => createMemoryLink(h.unit), antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 5_000 });
    await until(async () => (await d.get('r')) !== undefined, [d, h.s], 5_000);
    expect(await d.get('r')).toEqual({ a: 1 });
    expect(await d.get('z')).toEqual({ a: 3 });
    expect(internals(d).log.vector[x.id]).toBe(1);
    // A dialer still on version 1 holds it, as its host does.
    const older = await node({ schema: schemaAt(1), sync: { connect: () => createMemoryLink(h.unit), antiEntropyInterval: 0 } });
    await older.sync.addNode({ url: URL, token: 't' });
    await older.sync.synced(URL, { timeout: 5_000 });
    await until(() => older.sync.schemaInfo()?.held.count === 1, [older, h.s], 5_000);
    await closeAll(d, x, h.s, older);
  });

  it('LOG-14 LOG-15 BOOT-1: a dialer whose snapshot point its host\'s retention passed before it resubscribed bootstraps again, paced, and synced() resolves once that feed opens', async () => {
    let now = 1_000_000;
    // Sealed segments older than a second of the host's clock go at its next seal, one batch a segment.
    const h = await hub({}, { now: () => now, sync: { retention: { days: 1 / 86_400 }, log: { rollAfter: 1 } } });
    await h.s.set('a', { n: 1 });
    const log = internals(h.s).log;
    let taken = false;
    // Between the snapshot's first page and the feed it resumes, the host logs two ops a second apart, and its
    // retention drops every segment but the newest: the page's point is below its floor, a second bootstrap is due.
    const connect = (): SyncLink => {
      const inner = createMemoryLink(h.unit);
      return {
        call: async (m, a) => {
          const answer = await inner.call(m, a);
          if (m === 'snapshot' && !taken) {
            taken = true;
            const floor = log.head + 1;
            const dropped = new Promise<void>((resolve) => h.s.on('log', (e) => void (e.floor >= floor && resolve())));
            await h.s.set('b', { n: 2 });
            now += 2_000;
            await h.s.set('c', { n: 3 });
            await dropped;
          }
          return answer;
        },
        subscribe: (m, a, o) => inner.subscribe(m, a, o),
        on: (e, l) => inner.on(e, l),
        off: (e, l) => inner.off(e, l),
        close: () => inner.close(),
      };
    };
    const d = await node({ sync: { connect, antiEntropyInterval: 0 } });
    const boots: number[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e.records));
    await d.sync.addNode({ url: URL, token: 't' });
    // The second bootstrap's feed opens a second later (FeedPace) with nothing to send: no page, no event. synced()
    // was not told, and waited for the next op either side logged. Bounded only so that a failure reports.
    await expect(d.sync.synced(URL, { timeout: 5_000 })).resolves.toBeUndefined();
    expect(taken).toBe(true);
    expect(boots).toHaveLength(2);
    expect(await d.get('c')).toEqual({ n: 3 });
    await closeAll(d, h.s);
  });

  it('LOG-16 BOOT-10: retention keeps the merges a dialer joined from one host until its other host holds them; that host then gets them and synced() resolves', async () => {
    let now = 1_000_000;
    const g = await hub({}, { now: () => now });
    const h = await hub({}, { now: () => now });
    // h is registered from the start, its link down while d bootstraps from g.
    const { G, H, links, connect } = twoHosts(g.unit, h.unit);
    // Sealed segments older than a second of d's clock go at its next seal, one batch a segment.
    const d = await node({ now: () => now, sync: { connect, antiEntropyInterval: 0, signLate: false, retention: { days: 1 / 86_400 }, log: { rollAfter: 1 } } });
    await g.s.set('a', { n: 1 });
    // h holds g's ops (as hubs that sync with each other do): else it lacks what d adopted from g (BOOT-11).
    await applyPeerOps(h.s, internals(g.s).log.read(0).map((e) => e.op), via(g.s));
    await d.sync.addNode({ url: H, token: 't' });
    await d.sync.addNode({ url: G, token: 't' });
    await d.sync.synced(G, { timeout: 5_000 });
    const joined = `${d.id}<${g.s.id}`;
    const seqs = internals(d).log.vector[joined];
    expect(seqs).toBeGreaterThan(0);
    now += 2_000;
    await d.set('x', { n: 2 });
    await d.set('y', { n: 3 });
    await internals(d).committer.idle();
    // The joined merge and advance were no own ops to retention: dropped, h never got them from anyone (g never
    // holds them), every later merge of that stream was a gap at h, and synced(H) never resolved.
    expect(internals(d).log.read(0).filter((e) => opStreamKey(e.op) === joined)).toHaveLength(seqs);
    (links.get(H) as MemoryLink).restore();
    await expect(d.sync.synced(H, { timeout: 5_000 })).resolves.toBeUndefined();
    expect(internals(h.s).log.vector[joined]).toBe(seqs);
    expect(d.sync.listNodes().find((n) => n.url === H)?.acked[joined]).toBe(seqs);
    now += 2_000;
    // Retention runs as a segment seals: these seal those of h's bootstrap and of z.
    await d.set('z', { n: 4 });
    await d.set('w', { n: 5 });
    await internals(d).committer.idle();
    // Held by every host that may lack them, they go as any own op does.
    expect(internals(d).log.read(0).filter((e) => opStreamKey(e.op) === joined)).toHaveLength(0);
    await closeAll(d, g.s, h.s);
  });

  it('BOOT-11 HOST-20: a dialer whose own op its host adopted from another host while the dialer\'s push of it was queued there learns it from the host\'s advance; synced() resolves', async () => {
    const g = await hub();
    const h = await hub({}, { sync: { connect: () => createMemoryLink(g.unit), antiEntropyInterval: 0 } });
    let held: (() => void) | undefined;
    let first = true;
    // h as d's link sees it: d's first push waits until h bootstrapped from g, and is answered as h answered it
    // when its adoption of d's stream was queued and not committed yet: a duplicate, no vector entry named.
    const unit: HostUnit = {
      access: h.unit.access,
      call: async (m, a, c) => {
        if (m !== 'push' || !first) return h.unit.call(m, a, c);
        first = false;
        await new Promise<void>((resolve) => (held = resolve));
        const ans = (await h.unit.call(m, a, c)) as { duplicates: number };
        expect(ans.duplicates).toBe(1);
        return { ...ans, vector: {} };
      },
      subscribe: (m, a, c, o) => h.unit.subscribe(m, a, c, o),
      stream: (id, c) => h.unit.stream(id, c),
      disconnect: (c) => h.unit.disconnect(c),
    };
    const d = await node({ sync: { connect: () => createMemoryLink(unit), antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 5_000 });
    await d.set('x', { n: 1 });
    // g holds d's op; h bootstraps from g and adopts its vector, d's stream in it, with an advance its feed serves d.
    await applyPeerOps(g.s, internals(d).log.read(0).map((e) => e.op), via(d));
    await until(() => held !== undefined, [d]);
    await h.s.sync.addNode({ url: 'memory://g', token: 't' });
    await h.s.sync.synced('memory://g', { timeout: 5_000 });
    (held as () => void)();
    // The host's advance named d's stream, which d left out of its copy of the host's vector: d counted x as an op
    // h lacked, pushed nothing more (h had answered it), and synced() waited for the next hello.
    await expect(d.sync.synced(URL, { timeout: 5_000 })).resolves.toBeUndefined();
    expect(internals(h.s).log.vector[d.id]).toBe(1);
    await closeAll(d, h.s, g.s);
  });

  it('HOST-20 PROTO-5: a page whose op another page has queued and not logged yet is answered with that op\'s stream once it is logged; the pusher does not count it missing until its next hello', async () => {
    const x = await node();
    await x.set('a', { n: 1 });
    const ops = internals(x).log.read(0).map((e) => e.op);
    const b = await seeded();
    let release: (() => void) | undefined;
    let arrived: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const appending = new Promise<void>((resolve) => (arrived = resolve));
    let holding = false;
    // The host's log appends wait at the gate while `holding`: the first page's op stays queued, not logged.
    const backend = {
      ...b,
      write: async (...a: Parameters<typeof b.write>) => {
        if (holding && a[0].startsWith('log/')) (arrived?.(), await gate);
        return b.write(...a);
      },
    };
    const h = await open({ path: 'h', backend });
    holding = true;
    // As a host's feed from another host and a dialer's push bring the same op at once (the four-node model, scoped retention).
    const first = applyPeerOps(h, ops, via(x));
    await appending;
    // Unverified, the second page is judged within microtasks: by the next turn it found the op queued.
    const second = applyPeerOps(h, ops, { ...via(x), signatures: false });
    await new Promise((resolve) => setImmediate(resolve));
    release?.();
    const [a1, a2] = await Promise.all([first, second]);
    expect(a1.touched).toEqual({ [x.id]: 1 });
    // Answered while the op was queued, the second page's vector left it out: the pusher counted it as one the host lacked.
    expect(a2).toMatchObject({ duplicates: 1, touched: { [x.id]: 1 } });
    await closeAll(x, h);
  });

  it('LOG-8 BOOT-1: a dialer whose cursor names a position the host logged after the copy it was restored from bootstraps from the copy, and gets the ops the copy logged at those positions', async () => {
    const net = new Net();
    const backend = await seeded();
    const start = async (disk: typeof backend) => {
      const s = await open({ path: 'h', backend: disk });
      net.units.set(URL, s.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' }));
      return s;
    };
    const redial = async (...ds: Storage[]) => {
      for (const x of ds) {
        await x.sync.enableNode(URL, false);
        await x.sync.enableNode(URL, true);
        await x.sync.synced(URL, { timeout: 5_000 }).catch((err) => { throw new Error(`redial ${x === d ? 'd' : 'e'}: ${err.message} ${JSON.stringify(x.sync.peers())}`); });
      }
    };
    let h = await start(backend);
    const [d, e, f] = [await dialer(net), await dialer(net), await dialer(net)];
    for (const x of [d, e]) await x.sync.addNode({ url: URL, token: 't' });
    await e.set('a', { n: 1 });
    await redial(e, d);
    await h.close();
    const older = backend.snapshot();
    h = await start(backend);
    await redial(e, d);
    await e.set('b', { n: 2 });
    await e.set('c', { n: 3 });
    await redial(e, d);
    expect(await d.get('c')).toEqual({ n: 3 });
    await d.sync.enableNode(URL, false);
    await e.sync.enableNode(URL, false);
    await h.close();
    // Restored from the copy taken before b and c; f's writes land at the positions b and c had had there.
    h = await start(createMemoryBackend({ from: older }));
    await f.sync.addNode({ url: URL, token: 't' });
    await f.set('x', { n: 4 });
    await f.set('y', { n: 5 });
    await f.sync.synced(URL, { timeout: 5_000 });
    expect(internals(h).log.head).toBe(3);
    // d's cursor named position 3 of the original: taken as a position of the copy, d resumed past x and y.
    await d.sync.enableNode(URL, true);
    await d.sync.synced(URL, { timeout: 5_000 });
    expect([await d.get('x'), await d.get('y')]).toEqual([{ n: 4 }, { n: 5 }]);
    await closeAll(d, e, f, h);
  });

  it('SCOPE-12 OPS-11: a dialer\'s merge of a record purged since, scrubbed in its log, is taken by a host that scopes the dialer: it carries no record state to judge, and refusing it stopped the merge stream there for good', async () => {
    const g = await hub();
    // h scopes each session: d is granted A and B ('*' records pass too).
    const h = await hub({ authorize: (_c, hello) => hello.token === 't' && hello.scopes.every((x) => x === 'A' || x === 'B') });
    const { G, H, links, connect } = twoHosts(g.unit, h.unit);
    const d = await node({ sync: { connect, antiEntropyInterval: 0 } });
    await g.s.set('r1', { n: 1 });
    await applyPeerOps(h.s, internals(g.s).log.read(0).map((e) => e.op), via(g.s));
    await d.sync.addNode({ url: H, token: 't', scopes: ['A', 'B'] });
    await d.sync.addNode({ url: G, token: 't', scopes: ['A', 'B'] });
    await d.sync.synced(G, { timeout: 5_000 });
    // g purges r1: d scrubs the merge it joined r1 with, which h has not had yet.
    await g.s.purge('r1');
    await until(() => internals(d).committer.current('r1')?.purged !== undefined, [d]);
    await internals(d).committer.idle();
    const joined = `${d.id}<${g.s.id}`;
    const merge = internals(d).log.read(0).find((e) => opStreamKey(e.op) === joined && e.op.type === 'merge');
    expect(merge?.op).not.toHaveProperty('data');
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => void errors.push(e));
    (links.get(H) as MemoryLink).restore();
    // Refused as out of scope (applying it to be judged threw), the stream stopped there and synced(H) never resolved.
    await expect(d.sync.synced(H, { timeout: 5_000 })).resolves.toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual([]);
    expect(internals(h.s).log.vector[joined]).toBe(internals(d).log.vector[joined]);
    await closeAll(d, g.s, h.s);
  });

  it('RECON SCOPE-9: a records call serves a named record of any scope the session was granted, not only the label\'s: one that moved between labels while a dialer reconciled them was served under neither', async () => {
    const h = await hub({}, { sync: { scope: (_id: string, data: Record<string, unknown>) => (typeof data.$s === 'string' ? data.$s : '*') } });
    await h.s.set('c0', { n: 1 });
    await h.s.set('a0', { $s: 'A', n: 2 });
    await h.s.set('c9', { $s: 'C', n: 3 });
    const ctx = {};
    await h.unit.call('hello', { node: 'p', vector: {}, epoch: 'e', schema: null, scopes: ['A', 'B'], token: 't' }, ctx);
    // The dialer holds c0 in A (a move the host has not had yet) and asks for it under A, then a0 under '*'.
    expect(await h.unit.call('records', { scope: 'A', ids: ['c0'] }, ctx)).toMatchObject({ entries: [expect.objectContaining({ id: 'c0' })], taken: 1 });
    expect(await h.unit.call('records', { scope: '*', ids: ['a0'] }, ctx)).toMatchObject({ entries: [expect.objectContaining({ id: 'a0' })], taken: 1 });
    // Never one of a scope the session was not granted.
    expect(await h.unit.call('records', { scope: 'A', ids: ['c9'] }, ctx)).toEqual({ entries: [], taken: 1, outside: ['c9'] });
    await closeAll(h.s);
  });
});
