import { batchFile, batchFromName, type LogFile, type LogIndex, LOG_DIR, OPEN_DIR, opsHashHolds, parseLogFile, parseOpenFile, segmentFile } from '../log/files';
import type { Findings } from './findings';
import type { StorageDir } from './storage-dir';

/** One log file as verify read it. */
export interface ReadLogFile {
  path: string;
  kind: 'segment' | 'batch';
  from: number;
  /** The chain head the file carries. */
  chain?: string;
  /** The packed entries; undefined when the file is torn or no log file. */
  ops?: unknown[];
  /** A segment whose ops do not hash to the `scrub` its seal wrote (see sealHashFaults). */
  rotted?: boolean;
}

/** An index to walk by when log/index.json is unreadable: no sealed part, every open batch checked. */
const EMPTY_INDEX: LogIndex = { epoch: '?', floor: 0, vector: {}, segments: [], ts: 0 };

/** The sealed segments index.json lists, each checked against its entry there. */
async function readSegments(dir: StorageDir, index: LogIndex, f: Findings): Promise<ReadLogFile[]> {
  const out: ReadLogFile[] = [];
  let expect = index.floor + 1;
  for (const s of index.segments) {
    const path = segmentFile(s.from);
    if (s.from !== expect || s.to < s.from) f.fault('log/index.json', `segment ${s.from}..${s.to} does not follow position ${expect - 1}`);
    expect = s.to + 1;
    const text = await dir.backend.read(path);
    const file = parseLogFile(text);
    out.push({ path, kind: 'segment', from: s.from, chain: file?.chain, ops: file?.ops, rotted: !!file && !opsHashHolds(text as string, file, s.hashed) });
    if (!file) { f.fault(path, (await dir.backend.exists(path)) ? 'torn: not a log file' : 'missing, though index.json lists it'); continue; }
    if (file.from !== s.from) f.fault(path, `says it starts at ${file.from}; its name and index.json say ${s.from}`);
    if (file.ops.length !== s.to - s.from + 1) f.fault(path, `holds ${file.ops.length} entries; index.json says ${s.from}..${s.to}`);
    if (file.chain !== s.chain) f.fault(path, 'its chain head differs from the one index.json lists for it');
  }
  const last = index.segments[index.segments.length - 1];
  if (last?.chain !== undefined && index.chain !== last.chain) f.fault('log/index.json', "its chain head is not its last segment's");
  const listed = new Set(index.segments.map((s) => `seg-${s.from}.json`));
  for (const name of await dir.backend.list(LOG_DIR)) {
    if (!/^seg-\d+\.json$/.test(name) || listed.has(name)) continue;
    // With no index.json to read, open() refuses the store: its segments are not leftovers it removes.
    if (index === EMPTY_INDEX) f.warn(`${LOG_DIR}/${name}`, 'not checked: log/index.json, which lists the segments, cannot be read');
    else f.warn(`${LOG_DIR}/${name}`, 'not listed in index.json: a leftover that open() removes');
  }
  return out;
}

/** The open batches after the sealed part (one a line of each open file), checked for positions that follow on. */
async function readBatches(dir: StorageDir, sealedTo: number, f: Findings): Promise<ReadLogFile[]> {
  const froms = (await dir.backend.list(OPEN_DIR)).map(batchFromName).filter((n): n is number => n !== undefined).sort((a, b) => a - b);
  const out: ReadLogFile[] = [];
  let expect: number | undefined = sealedTo + 1;
  for (const [i, from] of froms.entries()) {
    const path = batchFile(from);
    const text = (await dir.backend.read(path)) ?? '';
    const lines = parseOpenFile(text);
    const sealed = (l: LogFile | undefined) => !!l && l.from + l.ops.length - 1 <= sealedTo;
    if (lines.every(sealed)) { f.warn(path, 'already sealed into a segment: a leftover that open() removes'); continue; }
    if (expect !== undefined && from > expect) f.fault(path, `positions ${expect}..${from - 1} are missing before it`);
    if (expect !== undefined && from < expect && !sealed(lines[0])) f.fault(path, `overlaps the batch before it (starts at ${from}, which is taken)`);
    for (const [j, file] of lines.entries()) {
      if (sealed(file)) continue;
      const newest = i === froms.length - 1;
      // A line's newline is appended with it: the newest line that has one was written whole, and is damage, as open() reads it.
      if (!file && j === lines.length - 1 && (newest ? !text.endsWith('\n') : froms[i + 1] === expect)) {
        // A crash mid-append tears the newest batch, whose ops were never announced (the log's end is then unknown).
        if (newest) out.push({ path, kind: 'batch', from: expect ?? from });
        f.warn(path, 'torn newest batch: a write a crash cut short, never announced; open() drops it');
        continue;
      }
      out.push({ path, kind: 'batch', from: file?.from ?? expect ?? from, chain: file?.chain, ops: file?.ops });
      if (!file) { f.fault(path, 'torn: not a log file'); expect = undefined; continue; }
      if (j === 0 && file.from !== from) f.fault(path, `says it starts at ${file.from}; its name says ${from}`);
      expect = file.from + file.ops.length;
    }
  }
  return out;
}

/**
 * Read every log file (The log): the segments index.json lists, then the
 * open batches, and check that their positions follow on from the floor with
 * no gap or overlap, so event ids only ever grow. Without a readable
 * index.json (itself a fault) the open batches are still read.
 */
export async function readLogFiles(dir: StorageDir, f: Findings): Promise<{ index: LogIndex; files: ReadLogFile[] }> {
  if (!dir.index) f.fault('log/index.json', 'missing or unreadable');
  if (dir.scrubbing) f.warn(dir.scrubbing, "a purge's rewrite a crash cut short (log/scrub.json holds it whole): read as finished, which open() does");
  const index = dir.index ?? EMPTY_INDEX;
  const segments = await readSegments(dir, index, f);
  const sealedTo = index.segments.length ? index.segments[index.segments.length - 1].to : index.floor;
  return { index, files: [...segments, ...(await readBatches(dir, sealedTo, f))] };
}

/**
 * The segments whose ops do not hash to what their seal wrote, and where no
 * check of an entry found what changed (an unsigned op without a digest, a
 * flag, the text around them): a fault of the file. Where an entry's check
 * did, that fault says it.
 */
export function sealHashFaults(files: readonly ReadLogFile[], epoch: string, f: Findings): void {
  const faulted = new Set(f.list.filter((x) => x.level === 'fault').map((x) => x.where));
  for (const file of files) {
    if (!file.rotted || !file.ops) continue;
    const n = file.ops.length;
    if (Array.from({ length: n }, (_, i) => `${epoch}.${file.from + i}`).some((w) => faulted.has(w))) continue;
    f.fault(file.path, 'its ops do not match the hash written at its seal, though no entry\'s check shows which changed (an unsigned op, a flag, the text between them): changed on disk after (bit rot, or an edit)');
  }
}
