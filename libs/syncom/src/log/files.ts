import type { Backend } from '../backend/types';
import type { Vector } from '../op/types';
import { platform } from '../platform';
import { type EndedEpoch, parseEventId } from './event-id';

/** Paths of the log, relative to the storage root (The log). */
export const LOG_DIR = 'log';
export const OPEN_DIR = 'log/open';
export const INDEX_FILE = 'log/index.json';
/** index.json's copy, written just before it where a write may tear (Backend.tornWrites). */
export const INDEX_NEXT_FILE = 'log/index.next.json';

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
  /** Sealed with the hash of its ops (LogFile.scrub): a file that lacks it is changed, not one an earlier version wrote. */
  hashed?: boolean;
}

/** log/index.json: { epoch, floor, vector, segments } and the newest stamp logged, for the clock. */
export interface LogIndex {
  epoch: string;
  /** The epochs of earlier opens, each with the head it ended at (OpLog.epochs, LOG-8). */
  epochs?: EndedEpoch[];
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
  /**
   * Counts the log's vector holds past every op its files show (OpLog.raised):
   * kept apart from `vector`, which the load checks against the sealed ops.
   */
  raised?: Vector;
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
  /**
   * chainBlock(chain, the file's ops as written), which the load checks: on
   * an open batch a purge rewrote (its ops changed under its chain block),
   * and on every sealed segment (it joins its batches without their
   * boundaries, so their blocks cannot be re-hashed; without it, an op a
   * flipped byte changed in a segment that stayed valid JSON loaded as
   * written). The name is the one the purge's rewrite first gave it, which
   * stores already hold.
   */
  scrub?: string;
  ops: unknown[];
}

/**
 * The next block of the audit chain (the DESIGN's chain): SHA-256 over the
 * previous head and the batch's ops as appended, base64url. Each node's chain
 * is its own record of what it applied in its order: converged nodes hold the
 * same records and different chains (GUAR-23).
 */
export function chainBlock(previous: string, opsText: string): string {
  return platform().sha256Parts([previous, '\n', opsText]);
}

/**
 * A log file's text as the log writes it (an appended batch, a segment, a
 * rewrite): the load finds the ops' own text in it again by this form, to
 * re-hash the chain block over the very text that was hashed.
 */
export function logFileText(from: number, opsText: string, chain?: string, scrub?: string): string {
  const c = chain === undefined ? '' : `,"chain":${JSON.stringify(chain)}`;
  return `{"from":${from}${c}${scrub === undefined ? '' : `,"scrub":${JSON.stringify(scrub)}`},"ops":${opsText}}`;
}

/** The text of a file's ops inside its text, when the text has the form logFileText writes; else undefined. */
export function opsTextOf(text: string, file: LogFile): string | undefined {
  const head = logFileText(file.from, '', file.chain, file.scrub).slice(0, -1);
  return text.startsWith(head) && text.endsWith('}') ? text.slice(head.length, -1) : undefined;
}

/** Whether a file's ops still hash to the `scrub` it carries (where it carries none, whether it need not: `hashed` says it must). */
export function opsHashHolds(text: string, file: LogFile, hashed = false): boolean {
  if (file.scrub === undefined) return !hashed;
  const ops = opsTextOf(text, file);
  return ops !== undefined && chainBlock(file.chain ?? '', ops) === file.scrub;
}

/** A log file's text carrying the hash of its ops (`scrub`): a sealed segment, an open batch a purge rewrote. */
export function hashedFileText(from: number, opsText: string, chain?: string): string {
  return logFileText(from, opsText, chain || undefined, chainBlock(chain ?? '', opsText));
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
    const ok = Number.isSafeInteger(v?.from) && Array.isArray(v.ops) && optional(v.chain, 'string') && optional(v.scrub, 'string');
    return ok ? v : undefined;
  } catch {
    return undefined;
  }
}

const optional = (x: unknown, type: 'string' | 'number'): boolean => x === undefined || typeof x === type;

/**
 * The lines of an open file, one batch each (`{from, chain, ops}\n`,
 * appended); a file written whole by a backend without append holds one, with
 * no newline. An empty file is one empty line.
 */
export function openFileLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The batches of an open file (see openFileLines); a line that cannot be read is undefined. */
export function parseOpenFile(text: string): (LogFile | undefined)[] {
  return openFileLines(text).map((line) => (line === '' ? undefined : parseLogFile(line)));
}

/** Parse index.json; undefined when it is missing, unreadable or not whole (see readIndex). */
export function parseIndex(text: string | undefined): LogIndex | undefined {
  const r = readIndex(text);
  return 'index' in r ? r.index : undefined;
}

/**
 * Read index.json: the index, or what is wrong with it. Each segment entry
 * is checked whole (positions that are safe integers, ascending, apart, above
 * the floor): the load removes and skips files by these ranges, so one
 * flipped bit in an entry must not pass for another range.
 */
export function readIndex(text: string | undefined): { index: LogIndex } | { fault: string } {
  if (text === undefined) return { fault: 'missing' };
  let v: LogIndex;
  try {
    v = JSON.parse(text) as LogIndex;
  } catch {
    return { fault: 'not JSON (torn or damaged)' };
  }
  if (typeof v !== 'object' || v === null) return { fault: 'not an index' };
  if (typeof v.epoch !== 'string' || v.epoch === '') return { fault: 'no epoch' };
  if (!Number.isSafeInteger(v.floor) || v.floor < 0) return { fault: 'no floor' };
  if (!Array.isArray(v.segments)) return { fault: 'no segment list' };
  if (v.vector !== undefined && !isCounts(v.vector)) return { fault: 'its vector is not whole' };
  if (v.raised !== undefined && !isCounts(v.raised)) return { fault: 'its raised counts are not whole' };
  if (v.epochs !== undefined && !(Array.isArray(v.epochs) && v.epochs.every(isEndedEpoch))) return { fault: 'its epochs are not whole' };
  if (![v.ts, v.heldLost, v.sealedSeq].every((n) => optional(n, 'number')) || !optional(v.chain, 'string')) return { fault: 'a field is not whole' };
  const bad = v.segments.findIndex((s: unknown, i) => !isSegmentInfo(s) || s.from <= (i === 0 ? v.floor : v.segments[i - 1].to));
  if (bad >= 0) return { fault: `segment entry ${bad} is not whole, or does not follow the one before it` };
  return { index: { ...v, vector: v.vector ?? {}, ts: v.ts ?? 0 } };
}

/**
 * index.json as the load reads it: where it is torn or empty, the copy
 * written just before it where a write may tear (Backend.tornWrites), which
 * holds the same index (a cut while the copy was written leaves index.json
 * whole, and the one before).
 */
export async function readIndexOf(backend: Backend): Promise<{ index: LogIndex } | { fault: string }> {
  const index = readIndex(await backend.read(INDEX_FILE));
  if ('index' in index) return index;
  // Read whatever the backend: a store written on OPFS may be opened elsewhere (a copy, the CLI's verify).
  const next = readIndex(await backend.read(INDEX_NEXT_FILE));
  return 'index' in next ? next : index;
}

const isEndedEpoch = (x: unknown): boolean => Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && typeof x[1] === 'number' && parseEventId(`${x[0]}.${x[1]}`) !== undefined;

const isCounts = (x: unknown): boolean =>
  typeof x === 'object' && x !== null && !Array.isArray(x) && Object.values(x).every((n) => Number.isSafeInteger(n) && (n as number) >= 0);

function isSegmentInfo(s: unknown): s is SegmentInfo {
  const x = s as SegmentInfo | null;
  if (typeof x !== 'object' || x === null || !Number.isSafeInteger(x.from) || !Number.isSafeInteger(x.to) || x.from > x.to) return false;
  return optional(x.chain, 'string') && optional(x.minTs, 'number') && optional(x.maxTs, 'number') && (x.hashed === undefined || typeof x.hashed === 'boolean');
}

/** The position a segment file's name carries (seg-<from>.json), or undefined for a name that is none. */
export function segmentFromName(name: string): number | undefined {
  const m = /^seg-(\d{1,16})\.json$/.exec(name);
  return m ? Number(m[1]) : undefined;
}
