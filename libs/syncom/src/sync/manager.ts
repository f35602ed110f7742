import { SyncomError } from '../errors';
import type { LogEntry } from '../log/op-log';
import type { SegmentInfo } from '../log/files';
import { opStreamKey } from '../op/types';
import { FLAG_SEALED } from '../op';
import type { SchemaInfo } from '../schema';
import type { Replica } from '../storage/replica';
import { type GaugeSource, hideTokens, type SyncTelemetry, urlLabel } from '../telemetry';
import { SyncContext } from './context';
import { Dialer } from './dial/dialer';
import { type DialOptions, syncedTimeout } from './dial/options';
import { assertNodeUrl, nodeFile, nodeToAdd, type NodeRecord, scopesGrow, updateNode } from './dial/registry';
import type { SyncEvents } from './events';
import { gaugeSource } from './gauge-source';
import type { SyncUnit, UnitOptions } from './host/unit';
import { makeUnit } from './host-slot';

export type { DialOptions };

/**
 * `storage.sync` as an app sees it: the manager without what open() and
 * close() drive (init, close) and the spans' own handle (telemetry). Calling
 * those from an app had started a second registry load or ended sync under
 * a storage still open.
 */
export type SyncApi = Omit<SyncManager, 'init' | 'close' | 'telemetry'>;

/**
 * storage.sync (Sync): the registry, the dialer of each registered node, the
 * host units, and the events of both roles.
 */
export class SyncManager {
  /** What the dialers and units share (internal: none of it is the user's API). */
  private readonly ctx: SyncContext;
  private readonly dialers = new Map<string, Dialer>();
  private readonly units = new Set<SyncUnit>();
  private started = false;
  /**
   * start() and stop() in the order they were called: a start() made while a
   * stop() still waits for its dialers runs once they are stopped, so it
   * dials afresh and its 'start' follows that stop's 'stop'.
   */
  private turns: Promise<void> = Promise.resolve();
  /** Set by close(): sync is over for good, with the storage. */
  private closed = false;
  /** Aborted by close(): a synced() wait ends CLOSED though no 'stop' comes (sync never started, or was stopped). */
  private readonly ending = new AbortController();
  /** Held here for as long as the storage lives: the meter holds it only weakly. */
  private readonly gauges: GaugeSource;

  constructor(replica: Replica, options: DialOptions) {
    this.ctx = new SyncContext(replica, options);
    this.gauges = gaugeSource(replica, () => this.dialers.values(), () => this.hosted());
    this.ctx.telemetry.observe(this.gauges);
  }

  private get events() {
    return this.ctx.events;
  }

  private get registry() {
    return this.ctx.registry;
  }

  private get replica(): Replica {
    return this.ctx.replica;
  }

  /** Spans and metrics of both roles, from open({ telemetry }) (OPT-16). */
  get telemetry(): SyncTelemetry {
    return this.ctx.telemetry;
  }

  /**
   * Load the registry; pin own ops for the registered nodes (LOG-16). Called
   * once, by open(), which holds what `onError` gets (a registry file that
   * cannot be read) until the caller could attach a listener.
   */
  async init(onError: (e: SyncomError) => void): Promise<void> {
    await this.registry.load(onError);
    if (this.ctx.options.connect) this.replica.pinRetention((s, entries) => this.pinned(s, entries));
  }

  /** 'verify' (default), 'require' or false (SIG-13..15). */
  get signatures(): 'verify' | 'require' | false {
    return this.ctx.signatures;
  }

  on<K extends keyof SyncEvents>(event: K, listener: (...args: SyncEvents[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  off<K extends keyof SyncEvents>(event: K, listener: (...args: SyncEvents[K]) => void): void {
    this.events.off(event, listener);
  }

  /** The scope of a record, by the storage's scope function. */
  scope(id: string, data: Record<string, unknown>): string {
    return this.replica.scopeFor(id, data);
  }

  /**
   * The unit a host mounts (HOST-1). It ends with the storage: close() ends
   * its sessions, feeds and pagings, and it answers every later call CLOSED.
   * Under `syncom/browser` it needs `import 'syncom/host'` first.
   * @throws SyncomError CLOSED once the storage's close() was called; UNSUPPORTED
   * in the browser entry when `syncom/host` was not imported.
   */
  unit(options: UnitOptions = {}): SyncUnit {
    this.assertOpen();
    const u = makeUnit(this.ctx, options);
    this.units.add(u);
    return u;
  }

  /** Every live changes feed on the hosting side (LIFE-5). */
  hosted() {
    return [...this.units].flatMap((u) => u.hosted());
  }

  /** How many changes feeds are live on the hosting side: hosted().length, without listing them (an unauthenticated GET /health reads it). */
  hostedCount(): number {
    let n = 0;
    for (const u of this.units) n += u.usage().feeds;
    return n;
  }

  /**
   * Register (or update) a node and dial it when sync runs (REG-1, REG-2). Re-adding a url updates its token and
   * scopes in place — the record a running dialer holds and saves — and redials so hello carries them; scopes that
   * grow drop its cursor after the hang-up (a page the old feed was committing meanwhile wrote it back).
   */
  async addNode(input: { url: string; token?: string; scopes?: string[] }): Promise<void> {
    this.assertOpen();
    const fresh = nodeToAdd(input);
    const had = this.registry.nodes.get(fresh.url);
    const grows = had !== undefined && scopesGrow(had.scopes, fresh.scopes);
    const rec = had ? updateNode(had, fresh) : fresh;
    this.registry.nodes.set(rec.url, rec);
    if (had) await this.hangUp(rec.url);
    if (grows) rec.cursor = null;
    try {
      await this.registry.save(rec);
      this.events.emit('node', { url: rec.url, action: 'add' });
    } finally {
      // Dialed even when the save failed (a full quota): the node stands registered in memory, and an app that
      // reads listNodes() to tell whether to register again would otherwise leave it undialed until a restart.
      if (this.started && rec.enabled) this.dial(rec);
    }
  }

  /** Keep a node but stop (false) or resume (true) dialing it; disabling closes its link at once (REG-3). */
  async enableNode(url: string, enabled: boolean): Promise<void> {
    this.assertOpen();
    // 'false' from a config file had been kept as given, and dialed (truthy).
    if (typeof enabled !== 'boolean') throw new SyncomError('INVALID_ARGUMENT', 'enableNode(url, enabled): enabled is true or false');
    const rec = this.node(url, 'enableNode()');
    rec.enabled = enabled;
    try {
      await this.registry.save(rec);
      this.events.emit('node', { url, action: enabled ? 'enable' : 'disable' });
    } finally {
      // Done even when the save failed: listNodes() shows the new state, so the links must follow it.
      await this.hangUp(url);
      if (enabled && this.started) this.dial(rec);
    }
  }

  /** Unregister a node and delete its file (REG-4). */
  async removeNode(url: string): Promise<void> {
    this.assertOpen();
    assertNodeUrl(url, 'removeNode()');
    // A node whose registry file could not be read is removed by its url too (nothing dials it): its file goes, and retention lets its ops go.
    if (!this.registry.unreadable.has(nodeFile(url))) this.node(url, 'removeNode()');
    await this.hangUp(url);
    await this.registry.remove(url);
    // Again once the registry let it go: a dialer an addNode() or enableNode() racing this one started meanwhile goes too.
    await this.hangUp(url);
    this.events.emit('node', { url, action: 'remove' });
  }

  /** The registered nodes (REG-5, LOG-17). */
  listNodes(): NodeRecord[] {
    return [...this.registry.nodes.values()].map((r) => structuredClone(r));
  }

  /**
   * Dial every enabled node (LIFE-1), once an earlier stop() finished.
   * @throws SyncomError CLOSED once the storage's close() was called.
   */
  async start(): Promise<void> {
    this.assertOpen();
    return this.inTurn(async () => {
      // close() may have been called while this start waited for its turn.
      if (this.started || this.closed) return;
      this.started = true;
      for (const rec of this.registry.nodes.values()) if (rec.enabled) this.dial(rec);
      this.events.emit('start');
    });
  }

  /** Close every link (LIFE-2). */
  async stop(): Promise<void> {
    return this.inTurn(() => this.stopDialers());
  }

  /**
   * End sync for good, as the storage closes: every unit this manager made
   * ends at once (no push, feed or page is served from here on), then the
   * dialers stop. Later calls that could dial or write answer CLOSED.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const u of this.units) u.close();
    this.units.clear();
    await this.inTurn(() => this.stopDialers());
    this.ending.abort();
    // No addNode(), enableNode() or removeNode() under way writes from here on: the lock goes once the storage is closed.
    await this.registry.close();
  }

  private async stopDialers(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    // Out of the map before the await: nothing that runs meanwhile finds a dialer that is stopping.
    const stopping = [...this.dialers.values()];
    this.dialers.clear();
    await Promise.all(stopping.map((d) => d.stop()));
    this.events.emit('stop');
  }

  private inTurn(step: () => Promise<void>): Promise<void> {
    const turn = this.turns.then(step);
    this.turns = turn.catch(() => undefined);
    return turn;
  }

  /** @throws SyncomError CLOSED once the storage's close() was called: nothing dials or writes after it. */
  private assertOpen(): void {
    if (this.closed || this.replica.isClosed) throw new SyncomError('CLOSED', 'the storage is closed; sync is over: open it again to sync');
  }

  /**
   * Push what each peer lacks right now (LIFE-3), the ops of streams a refusal held too (RefusedStreams).
   * @throws SyncomError CLOSED once the storage's close() was called.
   */
  async sync(): Promise<void> {
    this.assertOpen();
    await Promise.all([...this.dialers.values()].map((d) => d.recover(true, true)));
  }

  /**
   * Anti-entropy now (set reconciliation, RECONCILE.md): each dialer reconciles each granted scope
   * with its host, joins what differs and pushes what the host lacks.
   * Resolves when every dialer is done.
   */
  async forceSync(): Promise<void> {
    this.assertOpen();
    await Promise.all([...this.dialers.values()].map((d) => d.reconcile()));
  }

  /**
   * Resolves once this node and the registered node at `url` hold each other's ops, as far
   * as that host's last answer tells (greeted, subscribed and answered: a first subscription
   * is answered by the host's bootstrap, so a fresh node waits for it even when both are
   * empty; no page being taken, no bootstrap running, nothing queued or refused, nothing
   * missing either way): how a dialer awaits its first sync, or that its writes reached a hub.
   * It re-checks whenever the dialer's state moves (no polling), waits through reconnects;
   * give `timeout` (ms) to bound it. addNode() resolves once the node is registered, before
   * anything synced.
   *
   * @throws SyncomError NOT_FOUND when no node is registered at `url`; SYNC_TIMEOUT when
   * `timeout` passed first; CLOSED when sync stopped meanwhile (stop() or the storage's close()) or the storage is closed.
   * @example
   * await storage.sync.addNode({ url, token });
   * await storage.sync.synced(url, { timeout: 10_000 });
   */
  async synced(url: string, o: { timeout?: number } = {}): Promise<void> {
    // After close() no 'stop' is left to end the wait: it would hang.
    this.assertOpen();
    this.node(url, 'synced()');
    const ms = syncedTimeout(o);
    await new Promise<void>((resolve, reject) => {
      let unwatch: (() => void) | undefined;
      let watched: Dialer | undefined;
      const check = () => {
        const d = this.dialers.get(url);
        if (d !== watched) {
          // A dialer made again (addNode, enable) is watched in its place.
          unwatch?.();
          [watched, unwatch] = [d, d?.watch(check)];
        }
        if (d?.inSync()) done(resolve);
        else if (!this.registry.nodes.has(url)) done(() => reject(new SyncomError('NOT_FOUND', `no registered node ${urlLabel(url)}`, { url })));
      };
      const stopped = () => done(() => reject(new SyncomError('CLOSED', `sync stopped before in sync with ${urlLabel(url)}`, { url })));
      // The dialer tells each change of what inSync() reads; these events cover a dialer made, replaced or removed.
      const names = ['node', 'start', 'connect', 'peer', 'sync', 'bootstrap', 'error'] as const;
      // Not unref'd: a bounded wait the caller awaits must settle. Unref'd, a script awaiting it with nothing
      // else alive (a host that never answers) ended with exit code 0 and the promise still pending.
      const timer = ms === undefined ? undefined : setTimeout(() => done(() => reject(this.notInSync(url, ms))), ms);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        unwatch?.();
        for (const n of names) this.events.off(n, check);
        this.events.off('stop', stopped);
        this.ending.signal.removeEventListener('abort', stopped);
        settle();
      };
      for (const n of names) this.events.on(n, check);
      this.events.on('stop', stopped);
      this.ending.signal.addEventListener('abort', stopped);
      check();
    });
  }

  /**
   * SYNC_TIMEOUT naming what the dialer last met (its `cause`): a wrong token's 401 had come back only as a
   * timeout, the reason left in peers()' lastError. The host words its refusals and may quote the token it
   * was sent, and an app logs this message (syncom-nest's SyncomHttpFilter): every registered token reads
   * `<token>`, written so before the cut, which had left a token cut short where nothing could find it.
   */
  private notInSync(url: string, ms: number): SyncomError {
    const last = this.dialers.get(url)?.lastError ?? undefined;
    const tokens = Array.from(this.registry.nodes.values(), (n) => n.token ?? '');
    const why = last ? `; its last error: ${last.code}${last.status === undefined ? '' : ` ${last.status}`}: ${hideTokens(last.message, tokens, 200)}` : '';
    return new SyncomError('SYNC_TIMEOUT', `not in sync with ${urlLabel(url)} after ${ms} ms${why}`, { url, ...(last && { cause: last }) });
  }

  /** Each dialed peer's state (LIFE-4). */
  peers() {
    return [...this.dialers.values()].map((d) => d.state());
  }

  /** Wait for the registry writes under way. */
  async flush(): Promise<void> {
    await this.registry.flush();
  }

  /**
   * This node's schema (SCHEMA-1), with the ops held for a newer version:
   * `held.count` waiting in the log, `held.lost` dropped by retention first (GUAR-27).
   */
  schemaInfo(): (SchemaInfo & { held: { count: number; lost: number } }) | null {
    const info = this.replica.schema?.info();
    if (!info) return null;
    const log = this.replica;
    const count = log.read(log.floor).filter((e) => log.heldFor(e) !== undefined).length;
    return { ...info, held: { count, lost: log.heldLost } };
  }

  /**
   * Report a push a host refused for a limit outside its unit (a gateway's
   * limits guard): the `limited` event and telemetry, as the unit's own
   * refusals are (HOST-9..12).
   */
  limited(reason: string, node: string): void {
    this.ctx.limited(reason, node);
  }

  private node(url: string, call: string): NodeRecord {
    assertNodeUrl(url, call);
    const rec = this.registry.nodes.get(url);
    if (!rec) throw new SyncomError('NOT_FOUND', `no registered node ${urlLabel(url)}`, { url });
    return rec;
  }

  /** Stop a node's dialer, if it runs, and forget it. */
  private async hangUp(url: string): Promise<void> {
    const d = this.dialers.get(url);
    this.dialers.delete(url);
    await d?.stop();
  }

  private dial(rec: NodeRecord): void {
    // An addNode() or enableNode() that began before close(), or before a removeNode() of its url, ends without dialing;
    // so does an enableNode(url, true) that an enableNode(url, false) overtook while it hung up (the record says disabled).
    if (this.closed || !rec.enabled || !this.ctx.options.connect || this.dialers.has(rec.url) || this.registry.nodes.get(rec.url) !== rec) return;
    const d = new Dialer(this.ctx, rec);
    this.dialers.set(rec.url, d);
    void d.start();
  }

  /**
   * Whether retention must keep a segment: it holds an own op an enabled registered node lacks (LOG-16, LOG-21), the
   * merges joined from node F (`<id><F`) too: never sent to F, another host gets them from this node alone.
   */
  private pinned(_s: SegmentInfo, entries: readonly LogEntry[]): boolean {
    // A sealed op is never sent (GUAR-19), so no node lacks it.
    const own = (e: LogEntry) => e.op.origin === this.replica.id && !(e.flags & FLAG_SEALED);
    // A registry file that could not be read names a node of unknown scopes and acks: it may lack any own op.
    if (this.registry.unreadable.size > 0) return entries.some(own);
    const nodes = [...this.registry.nodes.values()].filter((r) => r.enabled);
    if (nodes.length === 0) return false;
    return entries.some((e) => own(e) && nodes.some((r) =>
      (e.op.from === undefined || r.remote.id !== e.op.from)
      && (r.scopes.includes('*') || r.scopes.includes(e.op.scope ?? '*') || (e.op.scope ?? '*') === '*')
      && (r.acked[opStreamKey(e.op)] ?? 0) < e.op.seq));
  }
}
