import type { Backend } from '../backend/types';
import type { Op, Vector } from '../op/types';
import { FLAG_SEALED } from '../op';
import { type EndedEpoch, formatEventId, ofThisLog, parseEventId } from './event-id';
import { batchFile, chainBlock, type EntryCipher, logFileText, type SegmentInfo } from './files';
import { fileEntriesText, openEpoch, unopenedIn, writeIndexFile } from './index-file';
import { loadLog, type OpenBatch } from './load';
import { OpenFiles } from './open-files';
import { type Retention, retentionOf } from './retention';
import { FLAG_GRANTED } from './flags';
import { HeadWakes } from './head-wakes';
import { sealBatches, dropSegments, scrubFiles } from './seal';
import { advanceVector, raiseVector, setVectorKey } from './vector';
import { ScopePositions } from './scope-positions';

export { chainBlock } from './files';

/** One op in the log, at its position, with its local flags. */
export interface LogEntry {
  pos: number;
  op: Op;
  flags: number;
}

export { FLAG_GRANTED } from './flags';

/** The `log` event: a segment was sealed (and maybe old ones dropped). */
export interface LogEvent {
  kind: 'seal';
  sealed: { from: number; to: number };
  dropped: { from: number; to: number }[];
  floor: number;
  segments: number;
}

export interface OpLogOptions {
  backend: Backend;
  durable?: boolean;
  rollAfter?: number;
  /** Ops a sealed segment holds at most, but for one batch larger alone (default: no bound beyond rollAfter batches; see sealWhileDue). */
  segmentOps?: number;
  /** One batch a line of the newest open file, where the backend appends (see OpenFiles); default one file per batch. */
  lines?: boolean;
  retention?: { ops?: number; days?: number };
  now?: () => number;
  /** A segment retention must keep (a dialer's own unacked ops, LOG-16). */
  pinned?: (segment: SegmentInfo, entries: readonly LogEntry[]) => boolean;
  onEvent?: (e: LogEvent) => void;
  onError?: (e: Error) => void;
  /** Retention dropped held ops (GUAR-27). */
  onHeldLost?: (count: number) => void;
  /** Whether a held entry waits still (default: every FLAG_HELD one); one the schema took at open is state, not a loss when its segment goes. */
  stillHeld?: (e: LogEntry) => boolean;
  /** Encrypts sealed entries in the files (GUAR-19); without it they are written in clear. */
  cipher?: EntryCipher;
  /** This node's id: a batch the load leaves out counts the seqs of this node's streams it used, not a peer's (load-open.ts). */
  self?: string;
}

/** Where a subscriber's cursor stands. */
export type CursorCheck = { ok: true; pos: number } | { ok: false; reason: 'foreign' | 'floor' | 'ahead' | 'invalid' };

/**
 * The op log (The log): appended batches under log/open/ (one a line of the newest open file,
 * or one file each; see OpenFiles), sealed every rollAfter batches into log/seg-<from>.json, with log/index.json.
 * Appends must not overlap: the storage's commit pipeline calls one at a time.
 */
export class OpLog {
  epoch = '';
  /** The epochs of earlier opens, each with the head it ended at (LOG-8). */
  epochs: EndedEpoch[] = [];
  floor = 0;
  head = 0;
  /** Everything logged: the highest seq per stream. */
  vector: Vector = {};
  /** What the sealed part of the log covers (index.json's vector). */
  sealedVector: Vector = {};
  /**
   * Counts the vector holds past every op the log's files show, kept in
   * index.json's `raised` at every write of it: this node's seqs a batch
   * left out at open used (load-open.ts), a stream a REWOUND moved (raise).
   * Once a seal or a restart forgets them, this node signs those seqs again.
   */
  raised: Vector = {};
  /**
   * The highest seq of this node's sealed stream (GUAR-19). Sealed ops run in
   * a stream of their own that no vector holds, so they never show in hello
   * or a snapshot and leave no hole in the streams peers see.
   */
  sealedSeq = 0;
  /** Newest stamp logged (seeds the clock on open, CLK-8). */
  maxTs = 0;
  /** Held ops (ahead: 'hold') that retention dropped before an upgrade applied them (GUAR-27). */
  heldLost = 0;
  /** Segments retention let go whose files are not removed yet: removed once index.json no longer lists them (see seal.ts). */
  readonly dropped: SegmentInfo[] = [];
  /** Open files whose batches are all sealed and whose removal failed: tried again at the next seal (see seal.ts). */
  readonly unremoved: number[] = [];
  /** Segments whose ops failed their hash at open (`scrub` they carry, by `from`): their entries are kept as read (seal.ts). */
  readonly rotted = new Map<number, string>();
  /** Scrubs that replaced a logged op in place: a reader that kept entries checks that none did since (one number, not each entry). */
  scrubs = 0;
  /** Called after a scrub replaced logged ops (seal.ts), for those who keep copies of entries to drop them. */
  readonly scrubbed = new Set<() => void>();
  /** The audit chain's head: one block per appended batch (GUAR-23). */
  chain = '';
  /** The chain as of the sealed part (index.json). */
  sealedChain = '';
  segments: SegmentInfo[] = [];
  /** Retained entries, positions floor+1..head (a hole is undefined). */
  entries: (LogEntry | undefined)[] = [];
  /**
   * Entries the load could not take, by position, packed as read: sealed
   * ones it could not open here (a platform without sealing, another key's
   * box) and damaged ones (no packed op: bit rot). They are holes of
   * `entries`, but a file rewritten (a seal, a purge's scrub) writes each
   * back as it was, so a process holding the key reads it again, and an
   * operator can still salvage what rotted. Written null, the bytes were
   * gone for good and nothing said so.
   */
  readonly unopened = new Map<number, unknown>();
  batches: OpenBatch[] = [];
  readonly retention: Retention;
  /** Called after every successful append: the feeds of the sync layer read from here. */
  readonly appended = new Set<(from: number, to: number) => void>();
  /** Called once the head reaches a position (feeds waiting for an ack unless the log grows by a page). */
  readonly wakes = new HeadWakes();
  readonly rollAfter: number;
  readonly segmentOps: number;
  /** The open files appends go to. */
  readonly files: OpenFiles;

  private constructor(readonly options: OpLogOptions) {
    this.retention = retentionOf(options.retention);
    this.rollAfter = Math.max(1, options.rollAfter ?? 64);
    this.segmentOps = Math.max(1, options.segmentOps ?? Infinity);
    this.files = new OpenFiles(options.backend, options.durable === true, this.rollAfter, options.lines === true);
  }

  /** Open (or create) the log; returns it with the unsealed tail to replay onto the records. */
  static async open(options: OpLogOptions): Promise<{ log: OpLog; tail: LogEntry[] }> {
    const log = new OpLog(options);
    const tail = await loadLog(log, options);
    await openEpoch(log);
    return { log, tail };
  }

  get now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Append one batch (one line of the newest open file); returns its first position. The commit point of its ops. */
  async append(items: { op: Op; flags?: number }[]): Promise<number> {
    const from = this.head + 1;
    const text = this.packText(items);
    const chain = chainBlock(this.chain, text);
    const data = logFileText(from, text, chain);
    await this.files.write(from, data, this.batches.length, (file) => {
      items.forEach((it, i) => this.addEntry({ pos: from + i, op: it.op, flags: it.flags ?? 0 }));
      this.chain = chain;
      this.batches.push({ from, to: this.head, recorded: false, text, chain, file });
    });
    for (const l of this.appended) {
      try {
        l(from, this.head);
      } catch (e) {
        this.options.onError?.(e as Error);
      }
    }
    this.wakes.reached(this.head, (e) => this.options.onError?.(e));
    return from;
  }

  /**
   * Best-effort removal of what a failed append may have left: a file it
   * started (named for its position). A line it added to an older file was
   * cut back by the backend, or is a torn last line the load drops, since the
   * next append starts a file of its own at that position.
   */
  async discard(): Promise<void> {
    await this.options.backend.remove(batchFile(this.head + 1));
  }

  /**
   * Each id's positions, built at the first scrub and kept up to date from
   * then on (a node that never purges pays nothing): a purge finds the files
   * holding its record's ops without a walk of the whole log (at 200,000 ops
   * a purge cost about 5 ms of that walk, growing with the log).
   */
  private byId?: Map<string, number | number[]>;

  private index(e: LogEntry): void {
    const byId = this.byId as Map<string, number | number[]>;
    const at = byId.get(e.op.id);
    if (at === undefined) byId.set(e.op.id, e.pos);
    else if (typeof at === 'number') byId.set(e.op.id, [at, e.pos]);
    else at.push(e.pos);
  }

  /** Each scope's retained positions, once a feed of some scopes asked (see ScopePositions). */
  private byScope?: ScopePositions;

  /**
   * The first retained position after `after` whose op declares one of
   * `scopes` or the global scope; head + 1 when there is none. With '*' among
   * `scopes`, after + 1.
   */
  nextInScopes(after: number, scopes: readonly string[]): number {
    if (scopes.includes('*')) return after + 1;
    if (!this.byScope) {
      this.byScope = new ScopePositions();
      for (const e of this.entries) if (e) this.byScope.add(e.pos, e.op.scope);
    }
    return this.byScope.next(after, scopes, this.head + 1);
  }

  /** The positions of `id`'s retained entries, in order. */
  positionsOf(id: string): number[] {
    if (!this.byId) {
      this.byId = new Map();
      for (const e of this.entries) if (e) this.index(e);
    }
    const at = this.byId.get(id);
    const list = at === undefined ? [] : typeof at === 'number' ? [at] : at;
    return list.filter((p) => p > this.floor);
  }

  /** An id scrubbed: its positions are let go (an entry of it appended later is taken again). */
  forget(id: string): void {
    this.byId?.delete(id);
  }

  /** Entries up to `floor` let go (retention dropped their segments), and their positions with them. */
  dropBelow(floor: number): void {
    const gone = this.entries.splice(0, floor - this.floor);
    this.floor = floor;
    for (const pos of this.unopened.keys()) if (pos <= floor) this.unopened.delete(pos);
    this.byScope?.dropBelow(floor);
    if (!this.byId) return;
    for (const e of gone) {
      const at = e && this.byId.get(e.op.id);
      if (at === undefined) continue;
      if (typeof at === 'number') {
        if (at <= floor) this.byId.delete((e as LogEntry).op.id);
        continue;
      }
      let k = 0;
      while (k < at.length && at[k] <= floor) k++;
      if (k === at.length) this.byId.delete((e as LogEntry).op.id);
      else if (k > 0) at.splice(0, k);
    }
  }

  /** Take an entry into memory: head, vector (the sealed stream for a sealed op), newest stamp. */
  addEntry(e: LogEntry): void {
    this.entries[e.pos - this.floor - 1] = e;
    if (this.byId) this.index(e);
    this.byScope?.add(e.pos, e.op.scope);
    if (e.pos > this.head) this.head = e.pos;
    if (e.flags & FLAG_SEALED) this.sealedSeq = Math.max(this.sealedSeq, e.op.seq);
    else advanceVector(this.vector, e.op);
    if (e.flags & FLAG_GRANTED && e.op.vector) raiseVector(this.vector, e.op.vector);
    if (e.op.ts > this.maxTs) this.maxTs = e.op.ts;
  }

  /**
   * The JSON of a file's entries (null for a hole): packed, and sealed ones
   * encrypted. A batch with no sealed entry pays one flag test per op. With
   * `from`, the file's first position, an unopened entry (see `unopened`) is
   * written as it was read, but for those at `erase` (a purge's).
   */
  packText(entries: readonly ({ op: Op; flags?: number } | undefined)[], from?: number, erase?: ReadonlySet<number>): string {
    return fileEntriesText(this.options.cipher, entries, from === undefined ? [] : unopenedIn(this.unopened, entries, from, erase));
  }

  /** A packed entry as read from a file, its sealed payload decrypted (see packText). */
  openPacked(packed: unknown): unknown {
    return this.options.cipher ? this.options.cipher.open(packed) : packed;
  }

  /** The batch starting at `from` has its records written: it may be sealed (GUAR-8). */
  markRecorded(from: number): void {
    const b = this.batches.find((x) => x.from === from);
    if (b) b.recorded = true;
  }

  /**
   * Seal recorded batches, rollAfter at a time, while that many wait (all of
   * them, on close: then the file kept open for appends is let go too, once
   * the index.json writes asked for have landed); apply retention.
   */
  async maybeSeal(all = false): Promise<void> {
    try {
      await this.sealWhileDue(all);
    } finally {
      if (all) await this.indexTurn.then(() => this.files.close());
    }
  }

  /**
   * Move streams past what the log holds of them, no op of them logged (a
   * REWOUND, LOG-23); resolves once index.json keeps the moves, written once
   * for all of them (once each cost the square of their number).
   * @throws the backend's error when index.json cannot be written (the moves stand in memory).
   */
  async raise(moves: Readonly<Vector>): Promise<void> {
    for (const [key, seq] of Object.entries(moves)) {
      if (!(this.raised[key] >= seq)) setVectorKey(this.raised, key, seq);
      if (!(this.vector[key] >= seq)) setVectorKey(this.vector, key, seq);
    }
    await this.writeIndex(this.sealedVector);
  }

  /**
   * Seal while rollAfter recorded batches, or segmentOps ops of them, wait
   * at the front (all of them with `all`): a segment holds at most rollAfter
   * batches and stops at the batch that takes it to segmentOps ops. A purge
   * rewrites the segments holding its record's ops, so their size is what a
   * purge costs: 64 batches of 1,000 ops make a segment of about 20 MB, and
   * a host taking pushes from peers it does not trust bounds it (the hub
   * sets 2,048; docs/security.md). The spec's segment is rollAfter batches
   * (LOG-4), the default.
   */
  private async sealWhileDue(all: boolean): Promise<void> {
    for (;;) {
      // The recorded batches at the front, up to the first that fills a segment.
      let n = 0;
      let ops = 0;
      let full = false;
      while (!full && n < this.batches.length && this.batches[n].recorded) {
        ops += this.batches[n].to - this.batches[n].from + 1;
        n++;
        full = n >= this.rollAfter || ops >= this.segmentOps;
      }
      if (n === 0 || (!all && !full)) return;
      const sealed = await sealBatches(this, this.batches.slice(0, n));
      const dropped = await dropSegments(this);
      this.options.onEvent?.({ kind: 'seal', sealed, dropped, floor: this.floor, segments: this.segments.length });
    }
  }

  /** index.json's writes, one at a time: a seal's and a raise's may be asked for together. */
  private indexTurn: Promise<unknown> = Promise.resolve();

  /**
   * Write index.json with the vector covering the sealed part, as the log
   * (and `vector`, read then) stands when its turn comes: a write asked for
   * earlier never lands after a later one, which would unlist a segment.
   */
  writeIndex(vector: Vector): Promise<void> {
    const run = this.indexTurn.then(() => writeIndexFile(this, vector));
    this.indexTurn = run.catch(() => undefined);
    return run;
  }

  /** Entries after position `after`, at most `limit` of them (holes skipped). */
  read(after: number, limit = Infinity): LogEntry[] {
    const out: LogEntry[] = [];
    for (let i = Math.max(0, after - this.floor); i < this.entries.length && out.length < limit; i++) {
      const e = this.entries[i];
      if (e) out.push(e);
    }
    return out;
  }

  /** The entry at a position, if retained. */
  at(pos: number): LogEntry | undefined {
    return this.entries[pos - this.floor - 1];
  }

  /** The event id of a position in this log (LOG-6). */
  eventId(pos: number = this.head): string {
    return formatEventId(this.epoch, pos);
  }

  /** Check a subscriber's cursor: a position here, a foreign epoch, below the floor (LOG-8, LOG-15). */
  cursor(eventId: unknown): CursorCheck {
    if (eventId === undefined || eventId === null || eventId === '') return { ok: false, reason: 'floor' };
    const id = parseEventId(eventId);
    if (!id) return { ok: false, reason: 'invalid' };
    if (!ofThisLog(id, this.epoch, this.epochs)) return { ok: false, reason: 'foreign' };
    if (id.seq < this.floor) return { ok: false, reason: 'floor' };
    if (id.seq > this.head) return { ok: false, reason: 'ahead' };
    return { ok: true, pos: id.seq };
  }

  /**
   * Scrub every entry of purged ids in place: payload and nonce removed (OPS-11, SIG-10); each file once.
   * Of an id in `sealed` (kept sealed here), only this node's sealed entries.
   */
  async scrub(ids: readonly string[], sealed?: ReadonlySet<string>): Promise<number> {
    return scrubFiles(this, ids, sealed);
  }

  /** Seal what is recorded (LIFE-24). */
  async close(): Promise<void> {
    await this.maybeSeal(true);
  }
}

