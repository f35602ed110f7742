import { createHash } from 'node:crypto';
import { canonicalJson, type ListedRecord, type Vector } from 'syncom';
import { FullPeer } from './full-peer';
import type { FullReport } from './full-proc';
import type { LoadPeer } from './peers';

/** At most this many problems of one kind are spelled out; the rest are counted. */
const SHOWN = 5;

/** What the checks found; `problems` is empty when nothing was lost and every peer converged. */
export interface CheckReport {
  ackedWrites: number;
  /** Records the verifier (a fresh node bootstrapped from the hub at the end) holds. */
  hubRecords: number;
  problems: string[];
}

/** Every stream the hub must hold: each peer's acknowledged writes (acked writes are contiguous per peer). */
export function expectedVector(peers: LoadPeer[]): Vector {
  const v: Vector = {};
  for (const p of peers) {
    const n = p instanceof FullPeer ? p.acked() : p.acked.length;
    if (n > 0) v[p.node] = n;
  }
  return v;
}

/** The hub's vector against the acknowledged writes: every stream there, nothing unexpected. */
export function compareVectors(hub: Vector, expected: Vector): string[] {
  const problems: string[] = [];
  for (const [k, n] of Object.entries(expected)) if ((hub[k] ?? 0) < n) problems.push(`hub lacks ${k.slice(0, 8)}: ${hub[k] ?? 0} of ${n}`);
  for (const k of Object.keys(hub)) if (!(k in expected)) problems.push(`hub holds a stream no peer wrote: ${k.slice(0, 16)}`);
  return problems;
}

/** The acknowledged writes of every peer, by record id. */
function ackedWrites(peers: LoadPeer[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const p of peers) {
    const writes = p instanceof FullPeer ? p.writes.slice(0, p.acked()) : p.acked;
    for (const w of writes) out.set(w.id, w.data);
  }
  return out;
}

/** A digest of records by id and canonical data: two peers holding the same records have the same one. */
export function recordsDigest(records: ListedRecord[] | Map<string, string>): string {
  const lines = records instanceof Map ? [...records].map(([id, data]) => `${id}\u0000${data}`) : records.map((r) => `${r.id}\u0000${canonicalJson(r.data)}`);
  const hash = createHash('sha256');
  for (const line of lines.sort()) hash.update(`${line}\n`);
  return hash.digest('hex');
}

/** Records the same, id for id, data for data. */
function sameRecords(a: ListedRecord[], b: Map<string, string>): boolean {
  return a.length === b.size && a.every((r) => b.get(r.id) === canonicalJson(r.data));
}

/** The full peers of a child process against the hub's records (`byId`): each acknowledged and holding the same. */
function checkRemoteFull(full: FullReport[], byId: Map<string, string>): string[] {
  if (full.length === 0) return [];
  const problems: string[] = [];
  const hub = recordsDigest(byId);
  for (const p of full) {
    if (p.unacked > 0) problems.push(`full peer ${p.index}: ${p.unacked} writes never acknowledged`);
    if (p.digest !== hub) problems.push(`full peer ${p.index} differs from the hub`);
  }
  return problems;
}

/** Keeps the first SHOWN problems and a count of the others. */
function capped(problems: string[]): string[] {
  return problems.length <= SHOWN ? problems : [...problems.slice(0, SHOWN), `... and ${problems.length - SHOWN} more`];
}

/**
 * Nothing lost, every sampled full peer converged: every acknowledged write
 * is a record of the hub with the data written (read through `verifier`, a
 * fresh node that bootstrapped from the hub), and each full peer holds
 * exactly the hub's records.
 */
export async function checkRecords(peers: LoadPeer[], verifier: FullPeer, remoteFull: FullReport[] = []): Promise<CheckReport> {
  const held = await verifier.storage.list();
  const byId = new Map(held.map((r) => [r.id, canonicalJson(r.data)]));
  const acked = ackedWrites(peers);
  const problems: string[] = [];
  for (const [id, data] of acked) {
    const at = byId.get(id);
    if (at === undefined) problems.push(`lost: ${id.slice(0, 16)} is not at the hub`);
    else if (at !== canonicalJson(data)) problems.push(`changed: ${id.slice(0, 16)} holds ${at}`);
  }
  if (byId.size !== acked.size) problems.push(`the hub holds ${byId.size} records for ${acked.size} acknowledged writes`);
  for (const p of peers) {
    if (!(p instanceof FullPeer)) continue;
    if (p.acked() < p.writes.length) problems.push(`full peer ${p.index}: ${p.writes.length - p.acked()} writes never acknowledged`);
    if (!sameRecords(await p.storage.list(), byId)) problems.push(`full peer ${p.index} differs from the hub`);
  }
  problems.push(...checkRemoteFull(remoteFull, byId));
  return { ackedWrites: acked.size, hubRecords: byId.size, problems: capped(problems) };
}
