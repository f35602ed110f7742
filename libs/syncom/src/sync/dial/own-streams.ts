import { SyncomError } from '../../errors';
import { FLAG_SEALED } from '../../op/pack';
import { opStreamKey, type Vector } from '../../op/types';
import type { Replica } from '../../storage/replica';
import { keyScope } from '../protocol/scopes';

/**
 * At hello, compare the host's vector with this node's own streams (The log):
 * - the host holds more of an own stream than the log does: the directory was
 *   restored from an older copy (REWOUND, LOG-22). The stream moves past what
 *   the host holds, so nothing minted collides (LOG-23); the caller bootstraps.
 * - the host lacks own ops the log no longer holds (UNDELIVERABLE, LOG-20).
 * Only the streams of the scopes the host is dialed for (`allowed`) are
 * compared: the host answers no others, and none of theirs go to it.
 */
export function ownStreamChecks(replica: Replica, hv: Vector, url: string, allowed: Set<string> | 'all' = 'all'): { errors: SyncomError[]; rewound: boolean } {
  const log = replica;
  const id = replica.id;
  // Streams of scopes this host is not dialed for are neither pushed to it nor shown in its answer.
  const own = (k: string) => (k === id || k.startsWith(`${id}@`)) && !k.includes('<') && (allowed === 'all' || allowed.has(keyScope(k)));
  const errors: SyncomError[] = [];
  const ahead = Object.entries(hv).filter(([k, n]) => own(k) && n > (log.vector[k] ?? 0));
  for (const [k, n] of ahead) {
    replica.raiseOwnStream(k, n);
  }
  if (ahead.length) {
    errors.push(new SyncomError('REWOUND', `the host holds ops of this node its log lacks (restored from a copy?): bootstrapping from ${url}`, { url, streams: Object.fromEntries(ahead) }));
  }
  const oldest = new Map<string, number>();
  for (const e of log.read(log.floor)) {
    // Sealed ops run in a stream no vector holds (GUAR-19): they are no own op a host lacks.
    if (e.flags & FLAG_SEALED) continue;
    const k = opStreamKey(e.op);
    if (own(k) && !oldest.has(k)) oldest.set(k, e.op.seq);
  }
  let lost = 0;
  for (const [k, n] of Object.entries(log.vector)) {
    if (!own(k)) continue;
    const first = oldest.get(k) ?? n + 1;
    const has = hv[k] ?? 0;
    if (has < first - 1) lost += first - 1 - has;
  }
  if (lost > 0) errors.push(new SyncomError('UNDELIVERABLE', `${lost} own op(s) the host lacks are no longer in the log`, { url, count: lost }));
  return { errors, rewound: ahead.length > 0 };
}
