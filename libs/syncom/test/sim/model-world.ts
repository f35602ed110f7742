import { internals } from '../../src/testing/internals';
import { createMemoryLink, open, type Storage, type SyncomError } from '../../src';
import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import { isHidden } from '../../src/crdt';
import type { HostUnit, MemoryLink } from '../../src/link';
import { canonicalJson } from '../../src/op';
import { mainVector } from '../../src/testing';
import { schemaAt } from './model-schema';
import { foreignSealed, listedState, OpArchive, oracleOf, sealedId } from './model-oracle';
import { seeded, until } from '../sync/helpers';

/**
 * A small world of four nodes on the in-process memory link, driven one
 * command at a time by a model-based property test (model-faults.spec.ts):
 * nodes 0 and 1 host a unit each; 1 and 2 dial 0, 3 dials 1 once it joins,
 * and any dialer may register the other host mid-run (a bootstrap from a
 * second host). Every link copies pages and calls (the link's duplicate
 * fault), may lose them for a while (lossy) and may be cut; nodes are closed and reopened, backed up stopped and restored
 * from that copy (REWOUND). Writes use a shared fake wall clock that a
 * command moves, so stamps of different nodes tie often.
 */

export const NODES = 4;
/** The scopes of a scoped world: null holds `$s` as no scope ('*'). */
const SCOPES = [null, 'A', 'B'] as const;
/** The schema mode's record types: one the schema validates, one it does not know. */
const TYPES = ['Item', 'Other'] as const;
const scopeOf = (_id: string, data: Record<string, unknown>): string => (typeof data.$s === 'string' ? data.$s : '*');
export const HOSTS = [0, 1] as const;
const urlOf = (host: number) => `memory://n${host}`;

/** One write a command asks of a node: fields keep one kind each (a, b registers, s a set, n a counter of c0 only). */
export interface Write {
  kind: 'set' | 'update' | 'delete' | 'add' | 'remove' | 'inc' | 'purge' | 'move';
  id: 'r0' | 'r1';
  field: 'a' | 'b';
  value: number;
}

export type Command =
  | { t: 'write'; node: number; w: Write }
  | { t: 'tick'; ms: number }
  | { t: 'cut'; node: number }
  | { t: 'lossy'; node: number; seed: number }
  | { t: 'settle' }
  | { t: 'reopen'; node: number }
  | { t: 'backup'; node: number }
  | { t: 'rewind'; node: number }
  | { t: 'join'; node: number; host: number }
  | { t: 'reconcile'; node: number }
  | { t: 'upgrade'; node: number }
  | { t: 'age' }
  | { t: 'seal'; node: number; value: number };

/** The retention mode's window: sealed segments whose newest stamp is older than this go (retention.days, on the world's clock). */
export const RETAIN_MS = 500;
/** How far `age` moves the clock: past the window, so every segment sealed before it may go at the next seal. */
const AGE_MS = 2 * RETAIN_MS;

/**
 * What a world adds to the default one: `signed` has nodes 1 (a host) and 3
 * run `signatures: 'require'` among nodes that sign, so every bootstrap of 3
 * goes through a node that refuses an unsigned op; `schema` starts every
 * node at schema version 1 and has `upgrade` move a node to version 2 (ops
 * of version 2 wait held at the others, GUAR-26), every node upgraded
 * before the checks; `retention` has every node seal a segment every two
 * batches and keep only those of the last RETAIN_MS of its clock, which
 * `age` moves past, so feeds fall below their host's floor and dialers
 * bootstrap again, incrementally where they hold records; `sealed` has
 * `seal` write or purge the node's own sealed record (GUAR-19) beside the
 * shared ones; `lines` writes the logs of nodes 1 and 3 as lines of an open
 * file (`log.lines`) beside the default layout of 0 and 2.
 */
export type Mode = 'plain' | 'signed' | 'schema' | 'retention' | 'sealed' | 'lines';

interface Member {
  index: number;
  backend: MemoryBackend;
  storage: Storage;
  unit?: HostUnit;
  /** Hosts this node dials (registered). */
  dials: Set<number>;
  /** A stopped copy of its directory, for rewind, and the hosts it dialed then (its registry's). */
  backup?: MemoryBackend;
  backupDials?: Set<number>;
  /** Its schema version (schema mode). */
  version: 1 | 2;
  /** Its sealed record as its last resolved write left it (sealed mode; null: none, or purged), and as of its backup. */
  sealed: Record<string, unknown> | null;
  backupSealed?: Record<string, unknown> | null;
}

/** Codes no run of this world may report (each a generator slip or an engine bug); REWOUND is expected after a rewind. */
const NEVER = new Set(['OP_REFUSED', 'OP_INVALID', 'OP_MALFORMED', 'SKEW', 'BAD_SIGNATURE', 'UNSIGNED', 'PAGE_FAILED', 'STUCK', 'UNDELIVERABLE', 'KIND_CLASH', 'OP_UNREADABLE', 'UNPERSISTED']);

export class World {
  readonly members: Member[] = [];
  readonly links = new Map<string, MemoryLink>();
  readonly problems: string[] = [];
  private t = 1_000_000;
  private linkSeed: number;
  /** Every op any node logged, as it was logged (the oracle's input). */
  readonly archive = new OpArchive();
  /** A host was put back from its backup (rewind). */
  private hostRewound = false;

  /** scoped: a record's scope is its `$s` ('A', 'B' or none: '*'), and every dialer carries A and B. */
  constructor(readonly seed: number, readonly scoped = false, readonly mode: Mode = 'plain') {
    this.linkSeed = seed;
  }

  now = (): number => this.t;

  static async create(seed: number, scoped = false, mode: Mode = 'plain'): Promise<World> {
    const w = new World(seed, scoped, mode);
    for (let i = 0; i < NODES; i++) w.members.push({ ...(await w.start(i, await seeded(), new Set(), 1)), sealed: null });
    // c0 holds the counter every node increments: made once, never reset (RESET-6), before any link.
    await w.members[0].storage.set('c0', { n0: 0 });
    // Under retention every dialer registers both hosts before it writes: retention waits only for registered nodes
    // (LOG-16, LOG-19), so own ops it dropped before a later registration would be lost to that host (UNDELIVERABLE).
    const links = mode === 'retention' ? [[1, 0], [2, 0], [2, 1], [3, 0], [3, 1]] : [[1, 0], [2, 0]];
    for (const [node, host] of links) await w.join(node, host);
    await w.quiesce();
    return w;
  }

  private connectFor(i: number) {
    return (n: { url: string }) => {
      const host = Number(n.url.slice('memory://n'.length));
      const unit = this.members[host]?.unit;
      if (!unit) throw new Error(`no unit at ${n.url}`);
      const link = createMemoryLink(unit, { faults: { seed: this.linkSeed++, duplicate: 0.2 } });
      this.links.set(`${i}>${host}`, link);
      return link;
    };
  }

  /** The sync options of node i (the oracle's: -1) in this world's mode. */
  private syncOf(i: number) {
    const require = this.mode === 'signed' && (i === 1 || i === 3 || i === -1);
    const retain = this.mode === 'retention' && i >= 0 && { retention: { days: RETAIN_MS / 86_400_000 }, log: { rollAfter: 2 } };
    const lines = this.mode === 'lines' && i % 2 === 1 && { log: { lines: true, rollAfter: 3 } };
    return { signLate: false, ...(this.scoped && { scope: scopeOf }), ...(require && { signatures: 'require' as const }), ...retain, ...lines };
  }

  private async start(i: number, backend: MemoryBackend, dials: Set<number>, version: 1 | 2): Promise<Omit<Member, 'sealed'>> {
    const sync = { connect: this.connectFor(i), antiEntropyInterval: 0, ...this.syncOf(i) };
    const schema = this.mode === 'schema' ? { schema: schemaAt(version) } : {};
    const storage = await open({ path: `m${i}`, backend, now: this.now, sync, ...schema });
    const report = (where: string) => (e: SyncomError) => void (NEVER.has(e.code) && !this.expected(e) && this.problems.push(`node ${i} ${where}: ${e.code} ${e.message}`));
    storage.on('error', report('storage'));
    storage.sync.on('error', report('sync'));
    this.archive.watch(storage);
    const unit = (HOSTS as readonly number[]).includes(i) ? storage.sync.unit({ access: 'public' }) : undefined;
    return { index: i, backend, storage, unit, dials, version };
  }

  /** Node dials host from now on (`again`: registered anew, which redials it). */
  async join(node: number, host: number, again = false): Promise<void> {
    const m = this.members[node];
    // Host 0 dials no one: host 1 dials it, and a second link between them adds no path.
    if (node === 0 || node === host || (m.dials.has(host) && !again)) return;
    m.dials.add(host);
    await m.storage.sync.addNode({ url: urlOf(host), token: 't', ...(this.scoped && { scopes: ['A', 'B'] }) });
  }

  async run(c: Command): Promise<void> {
    switch (c.t) {
      case 'write': return this.write(c.node, c.w);
      case 'tick': this.t += c.ms; return;
      case 'cut': return this.cut(c.node);
      case 'lossy': for (const l of this.linksOf(c.node)) l.faults({ seed: c.seed, duplicate: 0.2, drop: 0.2 }); return;
      case 'settle': return this.settle();
      case 'reopen': return this.reopen(c.node, undefined);
      case 'backup': return this.backup(c.node);
      case 'rewind': return this.rewind(c.node);
      case 'join': return this.join(c.node, c.host);
      case 'reconcile': return this.members[c.node].storage.sync.forceSync().catch(() => undefined);
      case 'upgrade': return this.mode === 'schema' && this.members[c.node].version === 1 ? this.reopen(c.node, undefined, 2) : undefined;
      case 'age': this.t += this.mode === 'retention' ? AGE_MS : 0; return;
      case 'seal': return this.mode === 'sealed' ? this.seal(c.node, c.value) : undefined;
    }
  }

  private async write(node: number, w: Write): Promise<void> {
    const s = this.members[node].storage;
    const entry = internals(s).committer.current(w.id);
    const live = !!entry && !isHidden(entry);
    const fields = { [w.field]: w.value };
    const expected = (e: unknown) => {
      const code = (e as SyncomError).code;
      if (code !== 'PURGED' && code !== 'NOT_FOUND') this.problems.push(`node ${node} ${w.kind} ${w.id}: ${code} ${(e as Error).message}`);
    };
    let p: Promise<void>;
    if (w.kind === 'inc') {
      const c0 = internals(s).committer.current('c0');
      if (!c0 || isHidden(c0)) return;
      p = s.inc('c0', 'n', w.value + 1);
    } else if (w.kind === 'move') {
      const id = w.value === 4 ? 'c0' : w.id;
      const e = internals(s).committer.current(id);
      if (!e || isHidden(e)) return;
      // Unscoped, the schema mode's move is a type change instead (to a type the schema knows, or one it does not).
      p = s.update(id, this.mode === 'schema' && !this.scoped ? { $type: TYPES[w.value % 2] } : { $s: SCOPES[w.value % 3] });
    } else if (w.kind === 'purge') p = s.purge(w.id);
    else if (w.kind === 'delete') p = live ? s.delete(w.id) : Promise.resolve();
    else if (w.kind === 'set' || !live) {
      const typed = this.mode === 'schema' && w.value > 2 && { $type: TYPES[0] };
      p = s.set(w.id, { ...(w.value % 2 ? fields : { a: w.value, b: -w.value }), ...(this.scoped && w.value > 1 && { $s: SCOPES[w.value % 3] }), ...typed });
    }
    else if (w.kind === 'update') p = s.update(w.id, fields);
    else if (w.kind === 'add') p = s.add(w.id, 's', [w.value % 3]);
    else p = s.remove(w.id, 's', [w.value % 3]);
    await p.catch(expected);
  }

  /** The node's own sealed record written whole, or purged (value 4) where it holds it: a purge of an id it lacks would be a clear op. */
  private async seal(node: number, value: number): Promise<void> {
    const m = this.members[node];
    const id = sealedId(node);
    const data = { a: value, k: this.t };
    try {
      if (value < 4) await m.storage.set(id, data, { sealed: true });
      else if (m.storage.isSealed(id) && (await m.storage.has(id))) await m.storage.purge(id);
      else return;
      m.sealed = value < 4 ? data : null;
    } catch (e) {
      if ((e as SyncomError).code !== 'PURGED') this.problems.push(`node ${node} sealed ${value}: ${(e as SyncomError).code} ${(e as Error).message}`);
    }
  }

  /**
   * An error the spec calls for here: under retention, a host put back from an older copy lacks ops its dialers
   * let go once it had acked them (LOG-16 waits for acks the restore undid), which they report (LOG-20); it gets
   * them from the other host.
   */
  private expected(e: SyncomError): boolean {
    return e.code === 'UNDELIVERABLE' && this.mode === 'retention' && this.hostRewound;
  }

  private linksOf(node: number): MemoryLink[] {
    return [...this.links].filter(([k]) => k.startsWith(`${node}>`) || k.endsWith(`>${node}`)).map(([, l]) => l);
  }

  /** Cut every link of the node that is up; restore them all when none is. */
  private cut(node: number): void {
    const links = this.linksOf(node);
    const up = links.filter((l) => l.connected);
    if (up.length) up.forEach((l) => l.cut());
    else links.forEach((l) => l.restore());
  }

  private async settle(): Promise<void> {
    await Promise.all([...this.links.values()].map((l) => l.settle()));
  }

  private async reopen(node: number, from: MemoryBackend | undefined, version = this.members[node].version): Promise<void> {
    const m = this.members[node];
    await m.storage.close();
    for (const k of [...this.links.keys()]) if (k.startsWith(`${node}>`)) this.links.delete(k);
    const next = await this.start(node, from ?? m.backend, m.dials, version);
    this.members[node] = { ...next, backup: m.backup, backupDials: m.backupDials, backupSealed: m.backupSealed, sealed: from ? m.backupSealed ?? null : m.sealed };
    // Dialers of a host that closed dial again: their links are gone with its unit. Under retention by addNode(),
    // which redials in place: a node disabled for a moment pins nothing (LOG-16), and a seal then drops own ops
    // that host lacks (UNDELIVERABLE at its next hello, as LOG-20 says).
    for (const d of this.members) {
      for (const h of d.dials) {
        if (h !== node) continue;
        if (this.mode === 'retention') {
          await this.join(d.index, h, true);
          continue;
        }
        await d.storage.sync.enableNode(urlOf(h), false);
        await d.storage.sync.enableNode(urlOf(h), true);
      }
    }
  }

  /** A copy of the node's directory taken stopped (docs/operations.md, Backups). */
  private async backup(node: number): Promise<void> {
    await this.members[node].storage.close();
    this.members[node].backup = createMemoryBackend({ from: this.members[node].backend.snapshot() });
    this.members[node].backupSealed = this.members[node].sealed;
    this.members[node].backupDials = new Set(this.members[node].dials);
    await this.reopen(node, undefined);
  }

  /**
   * The node's directory put back from its backup. Every host is made to
   * hold all the node wrote first, so its first hello finds it REWOUND; and
   * it writes nothing before that hello (the spec's documented loss: writes
   * between a restore and its hello reuse seqs the host had).
   */
  private async rewind(node: number): Promise<void> {
    const m = this.members[node];
    if (!m.backup || m.dials.size === 0 || !m.backupDials?.size) return;
    if ((HOSTS as readonly number[]).includes(node)) this.hostRewound = true;
    await this.quiesce();
    const copy = createMemoryBackend({ from: m.backup.snapshot() });
    // The copy's registry names the hosts it dialed then: a host registered since is not dialed until joined again.
    m.dials = new Set(m.backupDials);
    await this.reopen(node, copy);
    const s = this.members[node].storage;
    await Promise.all([...m.dials].map((h) => s.sync.synced(urlOf(h), { timeout: 5_000 })));
  }

  /**
   * Every link restored, every dialer in sync with each host it dials, and
   * every node's main vector the same: synced() answers as far as the host's
   * last answer tells, and an op the host took after it is still on its way.
   */
  async quiesce(): Promise<void> {
    // As a healed network: no more loss, and every link opened anew, so each dialer greets and pushes again (PROTO-13).
    // No copies either: a hello the link runs twice starts a second session at the host, and the dialer, holding
    // the first one's answer, is refused 428 at its next call; five such hellos in a row stop it (HANDSHAKE_LOOP).
    for (const l of this.links.values()) {
      l.faults({ seed: this.linkSeed++ });
      if (l.connected) l.cut();
      l.restore();
    }
    for (const m of this.members) {
      for (const h of m.dials) await m.storage.sync.synced(urlOf(h), { timeout: 5_000 });
    }
    const vectors = () => this.members.filter((m) => m.dials.size > 0 || m.index === 0).map((m) => JSON.stringify(mainVector(m.storage)));
    await until(() => new Set(vectors()).size === 1, this.members.map((m) => m.storage), 5_000).catch(() => {
      this.problems.push(`main vectors never met: ${vectors().join(' ')}`);
    });
    await this.settle();
  }

  /** What must be equal across nodes: listed records (data and meta), the merge states and the main vector. */
  async stateOf(node: number): Promise<string> {
    const s = this.members[node].storage;
    return canonicalJson({ state: JSON.parse(await listedState(s)), vector: mainVector(s) });
  }

  /**
   * A fresh node fed every op any node logged, in the interleaving `seed`
   * draws (model-oracle.ts): its state live and from its record files.
   */
  oracle(seed: number): Promise<{ live: string; reopened: string }> {
    const schema = this.mode === 'schema' ? { schema: schemaAt(2) } : {};
    return oracleOf(this.archive.interleaved(seed), { now: this.now, sync: this.syncOf(-1), ...schema });
  }

  /** Whether node i holds or knows of another node's sealed record, and whether its own reads as its last resolved write left it. */
  async sealedProblems(i: number): Promise<string[]> {
    const m = this.members[i];
    const foreign = foreignSealed(m.storage, i).map((id) => `node ${i} holds another node's sealed record ${id}`);
    const own = (await m.storage.get(sealedId(i))) ?? null;
    const lost = canonicalJson(own) === canonicalJson(m.sealed) ? [] : [`node ${i}'s sealed record reads ${canonicalJson(own)}, its last write left ${canonicalJson(m.sealed)}`];
    return [...foreign, ...lost];
  }

  /** Every node closed and opened again on its directory: the state its record files and log give back. */
  async reopenAll(): Promise<void> {
    for (let i = 0; i < NODES; i++) await this.reopen(i, undefined);
  }

  /** Every node still on schema version 1 upgraded (schema mode): what the guarantee waits for. */
  async upgradeAll(): Promise<void> {
    for (let i = 0; i < NODES; i++) await this.run({ t: 'upgrade', node: i });
  }

  async close(): Promise<void> {
    for (const m of this.members) await m.storage.close().catch(() => undefined);
  }
}
