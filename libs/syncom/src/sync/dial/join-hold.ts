import { type Entry, isEntry } from '../../crdt';
import { FLAG_HELD } from '../../op';
import type { Via } from '../../storage/commit';
import type { Replica } from '../../storage/replica';
import { mergeScope } from './merge-scope';
import { claimedVersion } from '../../storage/held-version';
import { entryDigest } from '../../reconcile';

/** What the log holds for a newer schema: the ids with held ops (and their newest version), the held merges' states. */
interface HeldLog {
  versions: Map<string, number>;
  merges: Map<string, Set<string>>;
}

/**
 * `ahead: 'hold'` on the paths that join whole states — a snapshot page, a
 * reconciliation, an incremental bootstrap (GUAR-26): a state of a newer
 * schema version, or of a record with ops held here (the state carries what
 * they did), is logged as a held merge, not applied, and lands on a reopen
 * with that schema as a held op does. The log is read once, then past where
 * it was read to, and only on a node whose schema holds.
 */
export class HeldJoins {
  private log?: HeldLog;
  /** What this page held itself: kept apart from the replica's, which only the log moves (a submit may fail). */
  private readonly mine: HeldLog = { versions: new Map(), merges: new Map() };

  constructor(private readonly replica: Replica) {}

  /** Whether a joined entry waits instead of applying. */
  holds(e: Entry): boolean {
    const schema = this.replica.schema;
    if (!schema || schema.ahead !== 'hold' || e.purged) return false;
    return claimedVersion(e.v ?? 0, schema.version, schema.maxAhead) > schema.version || this.read().versions.has(e.id) || this.mine.versions.has(e.id);
  }

  /**
   * Log the entry as a held merge carrying the newest version it waits for
   * (what a reopen compares with its schema). The same state held already is
   * not logged again: a reconciliation finds the record differing at every
   * run until the upgrade. A tombstone never held live here declares the
   * scope its host named (`removedScopes`), as a joined one does.
   */
  hold(raw: Entry, host: string, via: Via, removedScopes?: Readonly<Record<string, string>>): Promise<void> | undefined {
    const { replica, mine } = this;
    const held = this.read();
    const digest = entryDigest(raw);
    if (held.merges.get(raw.id)?.has(digest)) return undefined;
    const same = mine.merges.get(raw.id) ?? new Set<string>();
    if (same.has(digest)) return undefined;
    mine.merges.set(raw.id, same.add(digest));
    const op = replica.makeOp({ type: 'merge', id: raw.id, from: host, data: raw as never }, mergeScope(replica, raw.id, raw, removedScopes));
    op.v = Math.max(raw.v ?? 0, held.versions.get(raw.id) ?? 0, mine.versions.get(raw.id) ?? 0);
    mine.versions.set(raw.id, op.v);
    return replica.submit({ op, flags: FLAG_HELD, via });
  }

  /** The log's holds as this page starts: the replica's, read on from where the last page left them. */
  private read(): HeldLog {
    return (this.log ??= logHolds(this.replica));
  }
}

/** A replica's holds, with where the log was read to (its epoch, floor and head then). */
interface ReadHolds extends HeldLog {
  epoch: string;
  floor: number;
  head: number;
}

const holdsRead = new WeakMap<Replica, ReadHolds>();

/**
 * What the log holds for a newer schema, read once and then only past the
 * head it was read to: a held entry's flags and version never change, and
 * a scrub empties only a purged record's entries, which no join reaches
 * (a purged record takes no page's entry). A floor that moved (retention)
 * or another epoch reads it again. Each page read the whole log: a host
 * paging one record at a time cost the dialer its log's length a page
 * (test/hostile/held-page-cost.spec.ts).
 */
function logHolds(log: Replica): HeldLog {
  let held = holdsRead.get(log);
  if (!held || held.epoch !== log.epoch || held.floor !== log.floor || held.head > log.head) {
    held = { versions: new Map(), merges: new Map(), epoch: log.epoch, floor: log.floor, head: log.floor };
    holdsRead.set(log, held);
  }
  for (const e of log.read(held.head)) {
    held.head = e.pos;
    const v = log.heldFor(e);
    if (v === undefined) continue;
    held.versions.set(e.op.id, Math.max(v, held.versions.get(e.op.id) ?? 0));
    if (e.op.type === 'merge' && isEntry(e.op.data, e.op.id)) held.merges.set(e.op.id, (held.merges.get(e.op.id) ?? new Set<string>()).add(entryDigest(e.op.data as Entry)));
  }
  held.head = Math.max(held.head, log.head);
  return held;
}
