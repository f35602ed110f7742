import { type Entry, isEntry } from '../../crdt';
import { FLAG_HELD } from '../../op';
import type { Via } from '../../storage/commit';
import type { Replica } from '../../storage/replica';
import { mergeScope } from './merge-scope';
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
 * with that schema as a held op does. The log is read once per page, and
 * only on a node whose schema holds.
 */
export class HeldJoins {
  private log?: HeldLog;

  constructor(private readonly replica: Replica) {}

  /** Whether a joined entry waits instead of applying. */
  holds(e: Entry): boolean {
    const schema = this.replica.schema;
    if (!schema || schema.ahead !== 'hold' || e.purged) return false;
    return (e.v ?? 0) > schema.version || this.read().versions.has(e.id);
  }

  /**
   * Log the entry as a held merge carrying the newest version it waits for
   * (what a reopen compares with its schema). The same state held already is
   * not logged again: a reconciliation finds the record differing at every
   * run until the upgrade.
   */
  hold(raw: Entry, host: string, via: Via): Promise<void> | undefined {
    const { replica } = this;
    const held = this.read();
    const digest = entryDigest(raw);
    const same = held.merges.get(raw.id) ?? new Set<string>();
    if (same.has(digest)) return undefined;
    held.merges.set(raw.id, same.add(digest));
    const op = replica.makeOp({ type: 'merge', id: raw.id, from: host, data: raw as never }, mergeScope(replica, raw.id, raw));
    op.v = Math.max(raw.v ?? 0, held.versions.get(raw.id) ?? 0);
    held.versions.set(raw.id, op.v);
    return replica.submit({ op, flags: FLAG_HELD, via });
  }

  private read(): HeldLog {
    if (this.log) return this.log;
    const log = this.replica;
    const held: HeldLog = { versions: new Map(), merges: new Map() };
    for (const e of log.read(log.floor)) {
      const v = log.heldFor(e);
      if (v === undefined) continue;
      held.versions.set(e.op.id, Math.max(v, held.versions.get(e.op.id) ?? 0));
      if (e.op.type === 'merge' && isEntry(e.op.data, e.op.id)) held.merges.set(e.op.id, (held.merges.get(e.op.id) ?? new Set<string>()).add(entryDigest(e.op.data as Entry)));
    }
    return (this.log = held);
  }
}
