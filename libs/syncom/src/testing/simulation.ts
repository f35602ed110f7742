import { internals } from './internals';
import type { CrashDamage } from '../backend';
import type { NodeRecord } from '../sync/dial/registry';
import { OpArchive } from './sim-archive';
import { drawFaults, runChaos } from './sim-chaos';
import { drain, heal } from './sim-heal';
import { SimLink } from './sim-link';
import { type LinkFaultState, SimNetwork } from './sim-network';
import { SimNode, type SimNodeOptions } from './sim-node';
import { handInputs } from './sim-inputs';
import { checkHeldNow, holdRoles, schemaAt, upgradeHolder, watchHolder } from './sim-holds';
import { checkScrubbedNow, markerMerges } from './sim-purge';
import { scopedIndex, simScope } from './sim-scopes';
import { edgesOf, MAX_ROUNDS, type SimSettings, simSettings, type SimulationOptions } from './sim-options';
import { createRandom, type SimRandom } from './sim-random';
import { createTrace, type SimTrace } from './sim-trace';
import { createVirtualTimers, type VirtualTimers } from './virtual-timers';

/** The virtual time a run starts at: 2025-01-01T00:00:00Z. */
export const SIM_T0 = Date.UTC(2025, 0, 1);
const URL_PREFIX = 'sim:';
/** Of the steps, how many are a fault (cut, restore, partition, crash, new link faults, a jump in time). */
const FAULT_RATE = 0.03;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Whether a node's commit pipeline has work queued or in flight. Its signing
 * runs on libuv's pool, so a turn of the event loop can pass with it still
 * running: only the committer's own drain loop tells (a private field, read
 * here because nothing public says it).
 */
const committing = (n: SimNode): boolean => (internals(n.storage).committer as unknown as { running: unknown }).running !== null;

/** What happened in a run, for the report. */
export interface SimStats {
  steps: number;
  writes: number;
  /** Writes refused (a disk that died under them). */
  rejected: number;
  crashes: number;
  cuts: number;
  partitions: number;
  timers: number;
  /** Errors the nodes reported, by code. */
  errors: Record<string, number>;
  /** Deliveries by fate (SimNetwork.counts). */
  network?: SimNetwork['counts'];
  /** With purges on: the records purged, and the purge markers joined by reconciliation or bootstrap, all nodes. */
  purged?: number;
  purgeMerges?: number;
  /** With scopes on: ops the hub refused as out of a peer's scopes (a healthy run has none). */
  refused?: number;
  /** With holds on: entries the v1 node logged held, and of those the held merges (joined states). */
  held?: number;
  heldMerges?: number;
  /** With owners on: the one-owner checks made at reboots. */
  ownerChecks?: number;
  /** With sealed on: sealed writes acknowledged, all nodes. */
  sealed?: number;
}

/**
 * A seeded simulation of syncom nodes (the harness): N storages on
 * memory backends, linked by a network whose every delivery the schedule
 * decides, writes on a small key space, link faults, partitions, crashes and
 * reboots, clocks offset within maxSkew and time that moves only when the
 * schedule says. Each step hands inputs to distinct nodes, then waits until
 * every node is idle, so a seed replays the same run: the trace's hash is
 * the run's fingerprint.
 */
export class Simulation {
  readonly settings: SimSettings & { pageSize: number };
  readonly trace: SimTrace = createTrace();
  readonly net: SimNetwork;
  readonly nodes: SimNode[] = [];
  readonly links: SimLink[] = [];
  readonly archive = new OpArchive();
  readonly stats: SimStats = { steps: 0, writes: 0, rejected: 0, crashes: 0, cuts: 0, partitions: 0, timers: 0, errors: {} };
  readonly rng: SimRandom;
  readonly timers: VirtualTimers;
  /** Side A of the current partition: links between A and the rest stay cut. */
  partition: Set<number> | undefined;
  /** Nodes whose disk is set to die at a coming I/O point, with the damage it will leave. */
  readonly armed = new Map<number, CrashDamage>();
  /** Records a purge step purged (with purges on). */
  readonly purged = new Set<string>();
  /** With scopes on: the node that carries scope A only (it never writes). */
  scoped: number | undefined;
  /** What the scrub check after each step found (with purges on; the first few). */
  readonly scrubProblems: string[] = [];
  /** With holds on: the v1 node (ahead 'hold') and the v2 node. */
  holds: { holder: number; newer: number } | undefined;
  /** With holds on: whether the v1 node was reopened with version 2 (after healing). */
  upgraded = false;
  /** What the hold checks found (with holds on; the first few). */
  readonly holdProblems: string[] = [];
  private readonly faults = new Map<string, LinkFaultState>();
  private readonly linkCount = new Map<string, number>();

  private constructor(options: SimulationOptions) {
    const settings = simSettings(options);
    this.rng = createRandom(settings.seed);
    this.settings = { ...settings, pageSize: settings.pageSize ?? this.rng.pick([16, 32, 64, 64]) };
    this.net = new SimNetwork(this.trace);
    this.timers = createVirtualTimers(SIM_T0);
  }

  /**
   * Start the nodes (virtual timers are installed until close()).
   * @throws Error when another simulation's timers are installed.
   */
  static async create(options: SimulationOptions): Promise<Simulation> {
    const sim = new Simulation(options);
    sim.timers.install();
    try {
      await sim.start();
    } catch (e) {
      await sim.close();
      throw e;
    }
    return sim;
  }

  /** The run's seed. */
  get seed(): number {
    return this.settings.seed;
  }

  /** The run: the writes under faults, then healing until the network is quiet. */
  async run(): Promise<void> {
    for (let left = this.settings.writes; left > 0; ) left -= await this.step(left);
    await heal(this);
    await upgradeHolder(this);
    this.stats.rejected = this.nodes.reduce((n, node) => n + node.rejected, 0);
    this.stats.network = { ...this.net.counts };
    if (this.settings.sealed) this.stats.sealed = this.nodes.reduce((n, node) => n + node.acked.filter((w) => w.sealed).length, 0);
    if (this.settings.owners) this.stats.ownerChecks = this.nodes.reduce((n, node) => n + node.ownerChecks, 0);
    if (this.settings.purges) Object.assign(this.stats, { purged: this.purged.size, purgeMerges: markerMerges(this) });
    this.trace.record('end', ...this.nodes.map((n) => `${n.acked.length}/${internals(n.storage).log.head}`));
  }

  /** Close every storage and give the timers back. */
  async close(): Promise<void> {
    for (const link of this.links) link.close();
    for (const n of this.nodes) await n.storage.close().catch(() => undefined);
    this.timers.uninstall();
  }

  /** Every link's faults back to none (healing). */
  calm(): void {
    for (const f of this.faults.values()) Object.assign(f, { drop: 0, duplicate: 0, delay: 0, reorder: false });
  }

  /** Links not closed by their dialer. */
  liveLinks(): SimLink[] {
    return this.links.filter((l) => !l.isClosed);
  }

  /** Whether the partition separates two nodes. */
  separates(a: number, b: number): boolean {
    return !!this.partition && this.partition.has(a) !== this.partition.has(b);
  }

  /** The faults of the links from one node to another (kept across reconnections). */
  faultsOf(from: number, to: number): LinkFaultState {
    const key = `${from}-${to}`;
    let f = this.faults.get(key);
    if (!f) this.faults.set(key, (f = { drop: 0, duplicate: 0, delay: 0, reorder: false }));
    return f;
  }

  /** Resolves once no delivery's work runs and every committer is idle, two turns of the event loop in a row. */
  async quiesce(): Promise<void> {
    const busy = () => this.net.busy || this.nodes.some(committing);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      await this.net.settle();
      await Promise.all(this.nodes.map((n) => internals(n.storage).committer.idle()));
      await tick();
      if (busy()) continue;
      await tick();
      if (!busy()) return;
    }
    throw new Error(`seed ${this.seed}: the nodes never went idle`);
  }

  /** Reboot every node whose disk died at its armed I/O point. */
  async reap(): Promise<void> {
    for (const n of this.nodes) if (n.backend.isCrashed()) await this.reboot(n.index, this.armed.get(n.index) ?? 'none');
  }

  /** Crash a node now (its disk keeps what `damage` leaves) and boot it again. */
  async reboot(index: number, damage: CrashDamage): Promise<void> {
    this.stats.crashes++;
    this.armed.delete(index);
    this.trace.record('reboot', index, damage);
    for (const l of this.liveLinks()) if (l.o.to === index) l.cut();
    await this.quiesce();
    await this.nodes[index].reboot(damage, this.rng.int(2 ** 31));
    this.watch(this.nodes[index]);
    await this.quiesce();
  }

  /** Move time forward; timers due meanwhile run alone, before anything else. */
  async advance(ms: number): Promise<void> {
    const ran = this.timers.advance(ms);
    if (ran === 0) return;
    this.stats.timers += ran;
    this.trace.record('timers', ran);
    await this.quiesce();
  }

  private async start(): Promise<void> {
    const { count, edges } = edgesOf(this.settings);
    // The schedule does not depend on signatures: a signed and an unsigned run of one seed trace alike.
    // Purges, scopes, holds and owners off leave the settings' text as it was before they existed: older seeds keep their trace hashes.
    const { purges, purgeCounters, sealed, scopes, holds, owners } = this.settings;
    const added = { purges: purges || undefined, purgeCounters: purgeCounters || undefined, sealed: sealed || undefined, scopes: scopes || undefined, holds: holds || undefined, owners: owners || undefined };
    this.trace.record('settings', JSON.stringify({ ...this.settings, signatures: undefined, ...added }));
    this.scoped = scopedIndex(this.settings, count);
    this.holds = holdRoles(this.settings, count);
    if (scopes) this.stats.refused = 0;
    const half = Math.floor(this.settings.maxSkew / 2);
    for (let i = 0; i < count; i++) {
      const offset = this.rng.range(-half, half);
      this.trace.record('node', i, offset);
      const node = await SimNode.create({
        index: i, seed: this.seed, now: () => this.timers.now + offset,
        connect: (rec) => this.connect(i, rec), pageSize: this.settings.pageSize,
        sync: this.syncOptions(), schema: schemaAt(this, i), owners: this.settings.owners, onError: (n, code) => void (this.stats.errors[code] = (this.stats.errors[code] ?? 0) + 1),
      });
      this.nodes.push(node);
      this.watch(node);
    }
    // Counter records exist on every node before the run: they are never reset (RESET-6).
    for (let c = 0; c < this.settings.keys.counters; c++) await this.nodes[0].storage.set(`c${c}`, {});
    for (const [from, to] of edges) await this.nodes[from].storage.sync.addNode({ url: `${URL_PREFIX}${to}`, scopes: from === this.scoped ? ['A'] : undefined });
    await drain(this);
    // The run starts with every link faulty (a quarter of them calm); fault steps draw again.
    for (const [from, to] of edges) drawFaults(this, from, to);
  }

  private syncOptions(): SimNodeOptions['sync'] {
    const s = this.settings;
    return {
      maxSkew: s.maxSkew, pageSize: s.pageSize, signatures: s.signatures ? 'verify' : false,
      // Joined state signed before its append, as before signLate: when a relay may send it must not hang on the signing threads' timing.
      signLate: false,
      log: { rollAfter: s.rollAfter }, retention: s.retention === undefined ? undefined : { ops: s.retention },
      scope: s.scopes ? simScope : undefined,
    };
  }

  /** Archive what a node's log appends (the union of all ops, for the checks). */
  private watch(node: SimNode): void {
    const log = internals(node.storage).log;
    log.appended.add((from, to) => this.archive.add(log.read(from - 1, to - from + 1)));
    watchHolder(this, node);
    if (this.settings.scopes) node.storage.sync.on('refused', (e) => void (this.stats.refused = (this.stats.refused ?? 0) + e.count));
  }

  private connect(from: number, rec: NodeRecord): SimLink {
    const to = Number(rec.url.slice(URL_PREFIX.length));
    const pair = `${from}-${to}`;
    const n = (this.linkCount.get(pair) ?? 0) + 1;
    this.linkCount.set(pair, n);
    const link = new SimLink({ net: this.net, name: `L${pair}.${n}`, from, to, unitOf: (i) => this.nodes[i].unit, faults: this.faultsOf(from, to) });
    this.links.push(link);
    this.trace.record('link', link.o.name);
    if (this.separates(from, to)) link.cut();
    return link;
  }

  /** One step; returns how many writes it issued. */
  private async step(left: number): Promise<number> {
    this.stats.steps++;
    await this.advance(this.rng.range(1, 20));
    let writes = 0;
    if (this.rng.chance(FAULT_RATE)) await runChaos(this);
    else writes = handInputs(this, left);
    await this.quiesce();
    await this.reap();
    if (this.settings.purges) checkScrubbedNow(this);
    checkHeldNow(this);
    return writes;
  }
}
