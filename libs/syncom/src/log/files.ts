import type { Vector } from '../op/types';

/** Paths of the log, relative to the storage root (The log). */
export const LOG_DIR = 'log';
export const OPEN_DIR = 'log/open';
export const INDEX_FILE = 'log/index.json';

export const batchFile = (from: number) => `${OPEN_DIR}/${from}.json`;
export const segmentFile = (from: number) => `${LOG_DIR}/seg-${from}.json`;

/** A sealed segment as index.json lists it. */
export interface SegmentInfo {
  from: number;
  to: number;
  /** Oldest and newest op stamp in the segment, for retention.days. */
  minTs: number;
  maxTs: number;
  /** The chain head after the segment's last batch. */
  chain?: string;
}

/** log/index.json: { epoch, floor, vector, segments } and the newest stamp logged, for the clock. */
export interface LogIndex {
  epoch: string;
  floor: number;
  /** What the sealed part of the log covers. */
  vector: Vector;
  segments: SegmentInfo[];
  ts: number;
  /** Held ops retention dropped, ever (GUAR-27). */
  heldLost?: number;
  /** The audit chain's head as of the sealed part. */
  chain?: string;
}

/** One file of the log, open batch or sealed segment: positions from..from+ops.length-1. */
export interface LogFile {
  from: number;
  /** The audit chain's head after this batch (or the last batch of a segment). */
  chain?: string;
  ops: unknown[];
}

/** The position a batch file name carries, or undefined for a name that is none. */
export function batchFromName(name: string): number | undefined {
  const m = /^(\d{1,16})\.json$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** Parse a log file's text; undefined when it is torn or not a log file. */
export function parseLogFile(text: string | undefined): LogFile | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as LogFile;
    return Number.isSafeInteger(v?.from) && Array.isArray(v.ops) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Parse index.json; undefined when it is missing or unreadable. */
export function parseIndex(text: string | undefined): LogIndex | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as LogIndex;
    const ok = typeof v?.epoch === 'string' && Number.isSafeInteger(v.floor) && Array.isArray(v.segments);
    return ok ? { ...v, vector: v.vector ?? {}, ts: v.ts ?? 0 } : undefined;
  } catch {
    return undefined;
  }
}
