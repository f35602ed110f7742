import type { SyncLink } from '../link/contract';
import type { LogEntry } from '../log/op-log';
import { FLAG_SEALED, packOps } from '../op';
import { type Op, opStreamKey, type Vector } from '../op/types';
import type { PeerApplyResult } from '../storage/peer';
import { ATTRS, type SyncTelemetry } from '../telemetry';
import type { SyncEvents } from './events';

/** What a host answers to push: its apply counts and the stream keys the page touched. */
export type PushAnswer = Partial<PeerApplyResult> & { vector?: Vector };

/**
 * Whether an op should go to a host, and the host lacks it by its vector:
 * never sealed ops, the host's own, ops joined from it, or scopes the node
 * was not registered with (OPT-10, GUAR-19).
 */
export function hostLacks(e: LogEntry, host: string | null, allowed: Set<string> | 'all', hv: Vector): boolean {
  const op = e.op;
  if (e.flags & FLAG_SEALED || op.origin === host || op.from === host) return false;
  if (allowed !== 'all' && !allowed.has(op.scope ?? '*')) return false;
  return (hv[opStreamKey(op)] ?? 0) < op.seq;
}

/** One push call, in a push span. */
export function pushPage(link: SyncLink, telemetry: SyncTelemetry, url: string, page: LogEntry[]): Promise<PushAnswer> {
  return telemetry.push('dialer', url, page.length, async (span) => {
    const a = (await link.call('push', { ops: packOps(page.map((e) => e.op)) })) as PushAnswer;
    span.setAttribute(ATTRS.applied, a?.applied ?? 0);
    return a;
  });
}

/** The sync event of a pushed page. */
export function pushedEvent(url: string, pushed: number, ans: PushAnswer | undefined): SyncEvents['sync'][0] {
  const { applied = 0, skipped = 0, duplicates = 0, gaps = 0, malformed = 0, unsigned = 0, forged = 0 } = ans ?? {};
  return { url, pushed, received: 0, applied, skipped, duplicates, gaps, malformed, unsigned, forged };
}

/** Own ops the host holds, per own stream, into the record's acked (LOG-17). */
export function ackOwn(self: string, hv: Vector, acked: Vector): void {
  for (const [k, n] of Object.entries(hv)) if (k === self || k.startsWith(`${self}@`)) acked[k] = n;
}

/**
 * The host holds every op its feed sends: note them in its vector before they
 * are applied, so relaying them (which starts at their append) does not push
 * them straight back to it, to be verified a second time and dropped as duplicates.
 */
export function markHeld(hv: Vector, ops: readonly Op[]): void {
  for (const op of ops) {
    const k = opStreamKey(op);
    if ((hv[k] ?? 0) < op.seq) hv[k] = op.seq;
  }
}
