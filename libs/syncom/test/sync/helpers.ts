import { internals } from '../../src/testing/internals';
import { createMemoryBackend, createMemoryLink, open, type OpenOptions, type Storage, type SyncomError, type UnitOptions } from '../../src';
import type { HostUnit } from '../../src/link';
import type { MemoryLink } from '../../src/link';
import { generateSealingKeys } from '../../src/op';

let sealing: ReturnType<typeof generateSealingKeys> | undefined;
/** A memory backend holding the shared test RSA pair (sealing keys). */
export async function seeded() {
  const k = await (sealing ??= generateSealingKeys());
  return createMemoryBackend({ files: { 'keys/seal-public.pem': k.publicPem, 'keys/seal-private.pem': k.privatePem } });
}

let count = 0;

/** A node on a memory backend (shared test RSA pair), with an optional wall clock. */
export async function node(options: Partial<OpenOptions> = {}): Promise<Storage> {
  return open({ path: `n${count++}`, backend: await seeded(), ...options });
}

/** A hub: a node hosting a public unit that takes token 't'. */
export async function hub(unit: UnitOptions = {}, options: Partial<OpenOptions> = {}) {
  const s = await node(options);
  const u = s.sync.unit({ access: 'public', authorize: (_c, h) => h.token === 't', ...unit });
  return { s, unit: u };
}

/** Units by url, and the links made to them (the test controls each). */
export class Net {
  readonly units = new Map<string, HostUnit>();
  readonly links: MemoryLink[] = [];
  connect = (n: { url: string }) => {
    const unit = this.units.get(n.url);
    if (!unit) throw new Error(`no unit at ${n.url}`);
    const link = createMemoryLink(unit);
    this.links.push(link);
    return link;
  };
}

/** A dialing node whose connect() reaches the net's units. */
export async function dialer(net: Net, options: Partial<OpenOptions> = {}): Promise<Storage> {
  return node({ ...options, sync: { connect: net.connect, ...options.sync } });
}

/**
 * A hub unit at `url` on a fresh net and a dialer that reaches it (anti-entropy off unless the
 * options say otherwise), the dialer's sync errors collected; nothing registered yet.
 */
export async function hostAndDialer(url: string, o: { hub?: Partial<OpenOptions>; dialer?: Partial<OpenOptions> } = {}) {
  const net = new Net();
  const h = await hub({}, o.hub);
  net.units.set(url, h.unit);
  const d = await dialer(net, { ...o.dialer, sync: { connect: net.connect, antiEntropyInterval: 0, ...o.dialer?.sync } });
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  return { net, h, d, errors };
}

/**
 * Resolve once `check` holds, re-checking on every change and sync event of
 * the given storages (deterministic: no polling). Rejects after `ms` so a
 * failure reports instead of hanging.
 */
export function until(check: () => boolean | Promise<boolean>, storages: Storage[], ms = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const offs: (() => void)[] = [];
    let done = false;
    const finish = (e?: Error) => { if (done) return; done = true; clearTimeout(t); offs.forEach((o) => o()); e ? reject(e) : resolve(); };
    const t = setTimeout(() => finish(new Error('condition not reached')), ms);
    const test = () => void Promise.resolve(check()).then((ok) => ok && finish(), finish);
    for (const s of storages) {
      offs.push(s.on('change', test));
      for (const ev of ['sync', 'bootstrap', 'peer', 'error'] as const) offs.push(s.sync.on(ev, test));
    }
    test();
  });
}

/** Resolves with `p`, or rejects once `ms` passed: a hang reports instead of holding the test. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(t));
}

/** All records of a storage, canonical (id order). */
export async function records(s: Storage) {
  return (await s.list()).map((r) => [r.id, r.data]);
}

/** Close storages, ignoring errors. */
export async function closeAll(...ss: Storage[]) {
  for (const s of ss) await s.close().catch(() => undefined);
}

/** A node that wrote n:1 (seq 1) and n:2 (seq 2), both on the hub, and a copy of its directory from before n:2. */
export async function restoredNode() {
  const h = await hub();
  const connect = () => createMemoryLink(h.unit);
  const backend = createMemoryBackend();
  let d = await open({ path: 'd', backend, sync: { connect } });
  await d.sync.addNode({ url: 'memory://h', token: 't' });
  const first = await d.insert({ n: 1 });
  await until(async () => h.s.has(first), [h.s]);
  await d.close();
  const older = backend.snapshot();
  d = await open({ path: 'd', backend, sync: { connect } });
  const lost = await d.insert({ n: 2 });
  await until(async () => h.s.has(lost), [h.s]);
  await d.close();
  return { h, connect, restored: createMemoryBackend({ from: older }), lost };
}

/**
 * Change 60 of `ids` 25 times on the hub, then one record more until
 * retention dropped a segment: a dialer's cursor from before is below the
 * floor. Returns the hub's floor.
 */
export async function churnPastFloor(s: Storage, ids: readonly string[]): Promise<number> {
  for (let r = 0; r < 25; r++) await Promise.all(ids.slice(0, 60).map((id) => s.update(id, { i: -r })));
  await internals(s).committer.idle();
  for (let k = 0; k < 50 && internals(s).log.floor === 0; k++) {
    await s.update(ids[0], { i: -100 - k });
    await internals(s).committer.idle();
  }
  return internals(s).log.floor;
}
