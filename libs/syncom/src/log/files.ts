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
  /** The highest seq of this node's sealed stream, kept out of every vector (GUAR-19). */
  sealedSeq?: number;
}

/**
 * Encrypts the payload of sealed entries (FLAG_SEALED) on their way to a log
 * file and decrypts it on the way back (GUAR-19): the log never writes a
 * sealed record's payload in clear. Entries without the flag pass untouched.
 */
export interface EntryCipher {
  /** One file's packed entries (null for a hole), the sealed ones encrypted under one fresh key. */
  seal(packed: readonly unknown[]): unknown[];
  /** A packed entry as read: a sealed one decrypted, undefined when it cannot be. */
  open(packed: unknown): unknown;
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

/**
 * The batches of an open file, one a line (`{from, chain, ops}\n`, appended);
 * a file written whole by a backend without append holds one, with no
 * newline. A line that cannot be read is undefined; an empty file is one such.
 */
export function parseOpenFile(text: string): (LogFile | undefined)[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line === '' ? undefined : parseLogFile(line)));
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
