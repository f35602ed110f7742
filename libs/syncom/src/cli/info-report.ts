import { type Entry, isHidden } from '../crdt';
import type { Vector } from '../op/types';
import type { Storage } from '../storage/storage';
import type { NodeRecord } from '../sync/dial/registry';
import { urlLabel } from '../telemetry/url-label';

/** A registered node as info shows it; the token itself is never printed. */
export interface NodeInfo {
  url: string;
  enabled: boolean;
  scopes: string[];
  hasToken: boolean;
  /** The event id (in the remote's log) of the last changes page taken from it. */
  cursor: string | null;
  lastSync: number | null;
  /** This node's own ops the remote has not acknowledged, in the scopes it syncs. */
  lag: number;
  acked: Vector;
  remote: NodeRecord['remote'];
}

/** What `syncom info` reports (its --json form). */
export interface InfoReport {
  path: string;
  id: string;
  epoch: string;
  floor: number;
  head: number;
  /** The event id of the newest op in the log. */
  eventId: string;
  chain: string;
  /** Everything logged: the highest seq per stream. */
  vector: Vector;
  /** The highest seq of this node's sealed stream (kept out of every vector). */
  sealedSeq: number;
  segments: { from: number; to: number; minTs: number; maxTs: number }[];
  openBatches: { from: number; to: number }[];
  /** Ops retained in the log (floor+1..head, holes not counted). */
  ops: number;
  records: { live: number; deleted: number; purged: number; sealed: number };
  nodes: NodeInfo[];
  problems: string[];
}

/** The scope a vector key's stream is in: `origin@scope`, or '*' for a bare origin. */
const scopeOfKey = (key: string) => (key.includes('@') ? key.slice(key.indexOf('@') + 1) : '*');

/**
 * Own ops a registered node has not acknowledged: this node's own streams
 * (not the bootstrap streams `origin<F`, which never travel back) in the
 * scopes the node syncs, against its acked vector (LOG-17). The remote's own
 * head is unknown offline, so how far the cursor is behind is not shown.
 */
export function lagOf(rec: NodeRecord, ownId: string, vector: Vector): number {
  let lag = 0;
  for (const [key, seq] of Object.entries(vector)) {
    const own = (key === ownId || key.startsWith(`${ownId}@`)) && !key.includes('<');
    const scope = scopeOfKey(key);
    if (!own || !(scope === '*' || rec.scopes.includes('*') || rec.scopes.includes(scope))) continue;
    lag += Math.max(0, seq - (rec.acked[key] ?? 0));
  }
  return lag;
}

function countRecords(entries: Iterable<Entry>, sealed: ReadonlySet<string>): InfoReport['records'] {
  const out = { live: 0, deleted: 0, purged: 0, sealed: 0 };
  for (const e of entries) {
    if (e.purged) out.purged++;
    else if (isHidden(e)) out.deleted++;
    else out.live++;
    if (sealed.has(e.id)) out.sealed++;
  }
  return out;
}

/** Gather the report from a storage opened read-only. */
export function infoReport(storage: Storage, path: string, problems: string[]): InfoReport {
  const log = storage.replica;
  const shape = log.describeLog();
  const nodes = storage.sync.listNodes().map((rec): NodeInfo => ({
    // As the text form shows it: a url's user info and query are credentials.
    url: urlLabel(rec.url), enabled: rec.enabled, scopes: rec.scopes, hasToken: rec.token !== undefined, cursor: rec.cursor,
    lastSync: rec.lastSync, lag: lagOf(rec, storage.id, log.vector), acked: rec.acked, remote: rec.remote,
  }));
  return {
    path, id: storage.id, epoch: log.epoch, floor: log.floor, head: log.head, eventId: log.eventId(), chain: log.chain,
    vector: { ...log.vector }, sealedSeq: shape.sealedSeq, segments: shape.segments, openBatches: shape.openBatches,
    ops: log.read(log.floor).length,
    records: countRecords(log.records.values(), storage.sealed),
    nodes, problems,
  };
}
