import { SyncomError } from '../../errors';
import { FLAG_SEALED } from '../../op/pack';
import { opStreamKey, type Vector } from '../../op/types';
import type { Replica } from '../../storage/replica';
import { keyOrigin, keyScope } from '../protocol/scopes';
import { urlLabel } from '../../telemetry/url-label';

/**
 * Whether a vector key names a stream of node `id`: its own per scope, or
 * one of the merges it joined from another node (`<from`). Node ids hold
 * neither '@' nor '<' (streamKey), so the origin is the key up to either.
 */
export function isOwnStream(key: string, id: string): boolean {
  return keyOrigin(key) === id;
}

/**
 * A host's vector without the streams of node `id`: what a bootstrap may
 * adopt. Only this node mints its streams, and a host's word for how far
 * they run would move the next own seq past what any honest peer holds
 * (every later own op a gap there, for good); REWOUND at hello is the one
 * path that moves them (ownStreamChecks).
 */
export function othersOf(vector: Vector, id: string): Vector {
  const out: Vector = {};
  for (const k in vector) if (!isOwnStream(k, id)) out[k] = vector[k];
  return out;
}

/**
 * At hello, compare the host's vector with this node's own streams (The log):
 * - the host holds more of an own stream than the log does: the directory was
 *   restored from an older copy (REWOUND, LOG-22). The stream moves past what
 *   the host holds, so nothing minted collides (LOG-23); the caller bootstraps.
 *   The streams of merges joined from other nodes move too: the host may hold
 *   them, relayed, and the next bootstrap would mint their seqs again.
 * - the host lacks own ops the log no longer holds (UNDELIVERABLE, LOG-20).
 * Only the streams of the scopes the host is dialed for (`allowed`) are
 * compared: the host answers no others, and none of theirs go to it.
 * Resolves once log/index.json keeps the streams' move: a restart after the
 * REWOUND, before an own write, signs none of the host's seqs again.
 */
export async function ownStreamChecks(replica: Replica, hv: Vector, url: string, allowed: Set<string> | 'all' = 'all'): Promise<{ errors: SyncomError[]; rewound: boolean }> {
  const id = replica.id;
  // Streams of scopes this host is not dialed for are neither pushed to it nor shown in its answer.
  const dialed = (k: string) => allowed === 'all' || allowed.has(keyScope(k));
  const errors: SyncomError[] = [];
  const rewound = await rewind(replica, hv, url, (k) => isOwnStream(k, id) && dialed(k), errors);
  // Joined streams never go to the node they came from: a host lacking them is no loss.
  const lost = undeliverable(replica, hv, (k) => (k === id || k.startsWith(`${id}@`)) && !k.includes('<') && dialed(k));
  if (lost > 0) errors.push(new SyncomError('UNDELIVERABLE', `${lost} own op(s) the host lacks are no longer in the log`, { url, count: lost }));
  return { errors, rewound };
}

/**
 * Move the own streams the host holds more of past it (REWOUND); true when
 * any moved. A claim past what a node could have written (MAX_REWIND: it
 * would leave the stream few seqs, or none) marks the whole answer as
 * broken: BAD_ANSWER, and nothing moves. What a host claims below it is
 * taken on its word, as LOG-23 asks (docs/security.md, "What stays open").
 */
async function rewind(replica: Replica, hv: Vector, url: string, own: (k: string) => boolean, errors: SyncomError[]): Promise<boolean> {
  const ahead = Object.entries(hv).filter(([k, n]) => own(k) && n > (replica.vector[k] ?? 0));
  const wild = ahead.filter(([, n]) => !replica.canRaiseOwnStream(n));
  if (wild.length > 0) {
    errors.push(new SyncomError('BAD_ANSWER', 'the host claims more of this node\'s streams than it could have written (past 2^52 seqs): its answer is not taken, no stream moves', { url, streams: Object.fromEntries(wild) }));
    return false;
  }
  if (ahead.length === 0) return false;
  await replica.raiseOwnStreams(Object.fromEntries(ahead));
  errors.push(new SyncomError('REWOUND', `the host holds ops of this node its log lacks (restored from a copy?): bootstrapping from ${urlLabel(url)}`, { url, streams: Object.fromEntries(ahead) }));
  return true;
}

/** How many own ops of the streams `own` picks the host lacks that the log no longer holds (retention dropped them). */
function undeliverable(replica: Replica, hv: Vector, own: (k: string) => boolean): number {
  const oldest = new Map<string, number>();
  for (const e of replica.read(replica.floor)) {
    // Sealed ops run in a stream no vector holds (GUAR-19): they are no own op a host lacks.
    if (e.flags & FLAG_SEALED) continue;
    const k = opStreamKey(e.op);
    if (own(k) && !oldest.has(k)) oldest.set(k, e.op.seq);
  }
  let lost = 0;
  for (const [k, n] of Object.entries(replica.vector)) {
    if (!own(k)) continue;
    const first = oldest.get(k) ?? n + 1;
    const has = hv[k] ?? 0;
    if (has < first - 1) lost += first - 1 - has;
  }
  return lost;
}
