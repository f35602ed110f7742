import { platform } from '../platform';

/** A position in one node's log: `<epoch>.<seq>` (LOG-6). */
export interface EventId {
  epoch: string;
  seq: number;
}

/** The event id of position `seq` in the log of `epoch`. */
export function formatEventId(epoch: string, seq: number): string {
  return `${epoch}.${seq}`;
}

/** Parse an event id; undefined for anything that is not one. Never throws. */
export function parseEventId(value: unknown): EventId | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const epoch = value.slice(0, dot);
  const digits = value.slice(dot + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(epoch) || !/^(0|[1-9]\d{0,15})$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? { epoch, seq } : undefined;
}

/** An earlier epoch of a log and the head it ended at: its event ids up to there name positions of this log. */
export type EndedEpoch = [epoch: string, end: number];

/** How many earlier epochs a log keeps: a cursor of an older one is foreign, and its dialer bootstraps (incrementally where it holds records). */
const KEPT_EPOCHS = 64;

/** A fresh epoch: eight characters an event id carries whole (no '-' or '_'). */
export function newEpoch(): string {
  return platform().base64url(platform().randomBytes(6)).replace(/[-_]/g, 'x');
}

/**
 * The epochs a log keeps once opened again at `head` (LOG-8): the one it
 * was opened with ends there, and the open mints a new one. A copy restored
 * from a backup taken stopped holds none of the epochs the original minted
 * after it, so a cursor into what the original logged since is foreign
 * there, not a position the copy then fills with other ops; so is one past
 * the head an epoch ended at (a tail a crash cut off). Those ending below
 * the floor name no position left and go.
 */
export function epochsAfter(kept: readonly EndedEpoch[], epoch: string, head: number, floor: number): EndedEpoch[] {
  return [...kept.filter(([, end]) => end >= floor), [epoch, head] as EndedEpoch].slice(-KEPT_EPOCHS);
}

/** Whether `id` names a position of a log whose epoch is `epoch` after the `ended` ones. */
export function ofThisLog(id: EventId, epoch: string, ended: readonly EndedEpoch[]): boolean {
  return id.epoch === epoch || ended.some(([e, end]) => e === id.epoch && id.seq <= end);
}
