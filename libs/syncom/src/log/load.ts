import { SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import { FLAG_SEALED, hasIntactDigest, verifyOps } from '../op';
import { isPrototypeOrigin } from '../op/shape';
import { keyOrigin, opStreamKey, type Vector } from '../op/types';
import { INDEX_FILE, LOG_DIR, type LogFile, type LogIndex, OPEN_DIR, opsHashHolds, parseLogFile, readIndexOf, type SegmentInfo, segmentFile, segmentFromName } from './files';
import { loadOpen, readOps, report, RESTORE, type SealedPart, take, unreadable } from './load-open';
import type { LogEntry, OpLog, OpLogOptions } from './op-log';
import { finishScrub, openFileNames, readThrough, SCRUB_FILE } from './scrub-journal';
import { FLAG_GRANTED } from './flags';
import { advanceVector, raiseVector } from './vector';

export type { OpenBatch } from './load-open';

/** How the load reads a log file: through a scrub a crash cut short, as it is once finished. */
type ReadFile = (path: string) => Promise<string | undefined>;

function adopt(log: OpLog, index: LogIndex): void {
  log.epoch = index.epoch;
  log.epochs = index.epochs ?? [];
  log.floor = index.floor;
  log.head = index.floor;
  log.segments = index.segments;
  log.vector = { ...index.vector };
  log.sealedVector = { ...index.vector };
  log.maxTs = index.ts;
  log.heldLost = index.heldLost ?? 0;
  log.sealedSeq = Number.isSafeInteger(index.sealedSeq) ? (index.sealedSeq as number) : 0;
  log.chain = log.sealedChain = index.chain ?? '';
  log.raised = { ...index.raised };
}

/**
 * index.json missing or not whole: a new log when log/ holds no log file (a
 * fresh store), else refused. A new epoch over the files would drop every
 * sealed segment as unlisted and sign this node's seqs from 1 again.
 */
async function refuseOverFiles(backend: Backend, open: readonly number[], fault: string): Promise<void> {
  const segments = (await backend.list(LOG_DIR)).filter((n) => segmentFromName(n) !== undefined).length;
  if (segments === 0 && open.length === 0) return;
  throw new SyncomError('STORE_DAMAGED', `log/index.json is damaged or lost (${fault}), but log/ holds ${segments} sealed segment files `
    + `and ${open.length} open batch files: open() will not start a new log over them, which would lose acknowledged ops and sign `
    + `used sequence numbers again. ${RESTORE}`, { file: INDEX_FILE });
}

/** Why a segment file is not the one index.json lists, or undefined. */
function segmentFault(file: LogFile, s: SegmentInfo): string | undefined {
  if (file.from !== s.from) return `it starts at ${file.from}`;
  if (file.ops.length !== s.to - s.from + 1) return `it holds ${file.ops.length} entries`;
  return file.chain === s.chain ? undefined : 'its chain head differs';
}

/**
 * The chain head the first open batch chains to: the last segment's, which
 * its file confirmed, over index.json's own copy where the two differ.
 */
function sealedChain(log: OpLog, failed: readonly SegmentInfo[], options: OpLogOptions): string | undefined {
  const last = log.segments[log.segments.length - 1];
  if (!last) return log.sealedChain;
  if (last.chain === undefined) return undefined;
  if (failed.includes(last)) return log.sealedChain;
  if (last.chain !== log.sealedChain) {
    report(options, INDEX_FILE, `log/index.json: its chain head is not its last segment's, which ${segmentFile(last.from)} confirms: the segment's is taken`);
    log.chain = log.sealedChain = last.chain;
  }
  return last.chain;
}

/**
 * Read the segments index.json lists, each checked against its entry there
 * (`from`, op count, chain head): one that is not what index.json lists
 * (another store's, or changed) is reported and left out, as a missing one.
 * When no segment is what index.json lists, index.json is as likely the
 * foreign file, and its vector would have this node sign its seqs again.
 */
async function loadSegments(log: OpLog, read: ReadFile, options: OpLogOptions): Promise<SealedPart> {
  const failed: SegmentInfo[] = [];
  const faults: { path: string; message: string }[] = [];
  for (const s of log.segments) {
    const path = segmentFile(s.from);
    const text = await read(path);
    const file = parseLogFile(text);
    const fault = file && segmentFault(file, s);
    // Not a fault of index.json's: a store whose every segment rotted is still this store.
    const rotted = !!file && !fault && !opsHashHolds(text as string, file, s.hashed);
    if (!file) unreadable(options, path, 'torn or missing');
    else if (fault) faults.push({ path, message: `log file ${path} is not the segment index.json lists (${s.from}..${s.to}): ${fault}. `
      + 'Another store\'s file, or changed after it was written: its entries are left out, a hole of the log' });
    else if (rotted) await rottedSegment(log, options, path, s, file);
    else take(log, options, path, readOps(log, s.from, file.ops));
    if (!file || fault || rotted) failed.push(s);
    log.head = Math.max(log.head, s.to);
  }
  if (faults.length > 0 && failed.length === log.segments.length) {
    throw new SyncomError('STORE_DAMAGED', `log/index.json: none of the ${log.segments.length} segments it lists is the file at its name `
      + `(${faults[0].path}: not the same range or chain head): index.json, or the segments, are another store's. ${RESTORE}`, { file: INDEX_FILE });
  }
  for (const f of faults) report(options, f.path, f.message);
  return { to: log.head, chain: sealedChain(log, failed, options), failed };
}

/**
 * A segment whose ops no longer hash to the `scrub` its seal wrote: an op
 * changed on disk after (bit rot, an edit), and the hash does not tell
 * which. Each entry is judged: one that cannot be read, or whose signature
 * or payload digest fails, is a hole of the log, neither replayed nor
 * served, and kept as read (a purge's scrub still erases a record's data
 * there; an operator can salvage it); the rest are taken. An unsigned op
 * without a digest (signatures off) cannot be checked and is taken as read.
 * A rewrite keeps the hash they failed, so each open reports the segment.
 */
async function rottedSegment(log: OpLog, options: OpLogOptions, path: string, s: SegmentInfo, file: LogFile): Promise<void> {
  const read = readOps(log, s.from, file.ops);
  const verdicts = await verifyOps(read.entries.map((e) => e.op));
  const intact = (e: LogEntry, i: number) => verdicts[i] === 'ok' || (verdicts[i] === 'unsigned' && (e.op.digest === undefined || hasIntactDigest(e.op)));
  const failed = read.entries.filter((e, i) => !intact(e, i));
  const unchecked = read.entries.filter((e, i) => verdicts[i] === 'unsigned' && e.op.digest === undefined).length;
  read.entries = read.entries.filter(intact);
  read.unopened.push(...failed.map((e): [number, unknown] => [e.pos, file.ops[e.pos - s.from]]));
  // An entry that cannot be read is reported by take(), and explains the hash: the report says what it does not.
  const explained = failed.length === 0 && read.damaged + read.closed + read.deep > 0;
  take(log, options, path, read);
  log.rotted.set(s.from, file.scrub ?? '');
  if (explained) return;
  report(options, path, `log file ${path}: its ops do not match the hash written at its seal (bit rot, or an edit): `
    + (failed.length > 0 ? `${failed.length} entries fail their signature or digest: left out, kept in the file as read` : 'each entry\'s signature and digest holds')
    + (unchecked > 0 ? `; ${unchecked} unsigned ones taken as read, unchecked` : ''));
}

/**
 * index.json's vector checked against the sealed part it covers: it is the
 * counts that part's ops and granted advances make (a seal advances it by
 * them alone, as here; what no op shows, a REWOUND's move or the seqs of a
 * batch left out, index.json keeps apart in `raised`),
 * and index.json carries no checksum. A count rotted up left this node's
 * own stream a gap no peer can fill (every later write of it refused as
 * one), or a peer's ops skipped as duplicates; rotted down, a seq signed
 * again once retention drops the ops that show it. Where the part is whole
 * and shows a stream's count (no floor yet; past it, an op of the stream
 * still held, and only upward but for this node's own streams), the log's
 * count is taken and the file reported. One pass over the sealed entries, as the records' check makes.
 */
function checkVector(log: OpLog, sealed: SealedPart, options: OpLogOptions): void {
  if (sealed.failed.length > 0) return;
  const counts: Vector = {};
  const shown = new Set<string>();
  for (let p = log.floor + 1; p <= sealed.to; p++) {
    const e = log.at(p);
    // A hole (an entry not taken) may have held any stream's next ops: nothing can be told.
    if (!e) return;
    if (!(e.flags & FLAG_SEALED)) advanceVector(counts, e.op);
    if (!(e.flags & FLAG_SEALED) && log.floor > 0) shown.add(opStreamKey(e.op));
    if (e.flags & FLAG_GRANTED && e.op.vector) raiseVector(counts, e.op.vector);
  }
  // Past the floor a peer's count is only raised: a granted advance retention dropped may have counted more than
  // its ops show, and a page judged before that advance landed may have logged lower seqs of it after. Only this
  // node's own streams, logged in seq order, are lowered there too.
  const own = (k: string) => options.self !== undefined && keyOrigin(k) === options.self;
  const told = (k: string) => log.floor === 0 || !canBeStream(k)
    || (shown.has(k) && (own(k) || countOf(log.sealedVector, k) < countOf(counts, k)));
  const wrong = [...new Set([...Object.keys(log.sealedVector), ...Object.keys(counts)])]
    .filter((k) => countOf(log.sealedVector, k) !== countOf(counts, k) && told(k));
  if (wrong.length === 0) return;
  report(options, INDEX_FILE, `log/index.json: its vector is not the sealed log's (${wrong.slice(0, 3).map((k) => `${k}: ${countOf(log.sealedVector, k)}, log ${countOf(counts, k)}`)}): the log's taken`);
  for (const k of wrong) {
    for (const v of [log.sealedVector, log.vector]) {
      if (countOf(counts, k)) v[k] = counts[k];
      else delete v[k];
    }
  }
}

/** Whether the open batches hold a position: an entry taken, or one kept unopened (OpLog.unopened). */
const held = (log: OpLog, pos: number) => log.at(pos) !== undefined || log.unopened.has(pos);

/**
 * A vector's count of a stream, its own entries only: index.json's vector is
 * a file's JSON, and for its key `constructor` the log's counts (a plain
 * object without it) read Object.prototype's function, for `__proto__` an
 * object, which were taken as the log's count and written back.
 */
function countOf(v: Vector, k: string): number {
  return Object.hasOwn(v, k) ? v[k] : 0;
}

/**
 * Whether any op can run in the stream: none's origin is a name of
 * Object.prototype (op/check.ts). Such a key, kept past the floor, went out
 * in every hello answer, and a `__proto__` there is no vector to a dialer.
 */
function canBeStream(k: string): boolean {
  return !isPrototypeOrigin(k);
}

/**
 * The highest count `raised` may hold: a REWOUND moves a stream that far at
 * most (MAX_REWIND), so no node reaches it, and a stream there still has seqs.
 */
const MAX_RAISED = 2 ** 52;

/**
 * index.json's `raised` counts taken into the vector, after checkVector
 * (which judges the vector by the sealed ops: no op shows these). They are
 * this node's streams alone (a REWOUND moves no other; a batch left out
 * counts no peer's op): a count of another stream would skip that peer's
 * ops as had, and one past MAX_RAISED would leave the stream no seq to sign,
 * so either (a rotted key or digit: index.json has no checksum) is reported
 * and dropped.
 */
function takeRaised(log: OpLog, options: OpLogOptions): void {
  const { self } = options;
  const wrong = Object.keys(log.raised).filter((k) => log.raised[k] > MAX_RAISED || (self !== undefined && keyOrigin(k) !== self));
  for (const k of wrong) delete log.raised[k];
  if (wrong.length > 0) report(options, INDEX_FILE, `log/index.json: its raised counts of ${wrong.slice(0, 3).join(', ')} are none this node could have made (another node's stream, or past 2^52): left out`);
  raiseVector(log.vector, log.raised);
}

/**
 * A segment file index.json does not list that a crash leaves: one retention
 * dropped (index.json is written first, the files removed after), or one a
 * seal wrote before index.json listed it, whose ops the open batches still
 * hold. Removing either loses nothing.
 */
function isLeftover(log: OpLog, file: LogFile, sealedTo: number): boolean {
  if (file.from + file.ops.length - 1 <= log.floor) return true;
  return file.from > sealedTo && file.ops.every((op, i) => op === null || held(log, file.from + i));
}

/**
 * The segment files index.json does not list: a crash's leftover is removed
 * (one a seal wrote whole, or tore, before index.json listed it); any other
 * is kept. One inside the sealed part is reported and not read;
 * one past it is refused, since the next seal would write over it and
 * index.json may be older than the log.
 */
async function sweepSegments(log: OpLog, options: OpLogOptions, sealedTo: number): Promise<void> {
  const { backend } = options;
  const listed = new Set(log.segments.map((s) => s.from));
  for (const name of await backend.list(LOG_DIR)) {
    const from = segmentFromName(name);
    if (from === undefined || listed.has(from)) continue;
    const path = `${LOG_DIR}/${name}`;
    const file = parseLogFile(await backend.read(path));
    if (file?.from === from && isLeftover(log, file, sealedTo)) await backend.remove(path);
    // Torn (or empty) past the sealed part while the open batches hold its first position: a seal cut short
    // where writes are not atomic (OPFS at a power cut); the batches still hold its ops, and the next seal writes it again.
    else if (file === undefined && from > sealedTo && held(log, from)) await backend.remove(path);
    else if (from <= sealedTo) report(options, path, `log file ${path} is not listed in index.json and is no leftover of a seal: left in place, not read`);
    else throw new SyncomError('STORE_DAMAGED', `${path} is not listed in index.json, and the open batches do not hold its positions: `
      + `index.json may be older than the log, or the file another store's. open() refuses rather than lose it. ${RESTORE}`, { file: path });
  }
}

/**
 * Read index.json, the sealed segments and the open batches into `log`;
 * returns the tail. A store damaged after the fact never opens silently
 * short of what it acknowledged: where the load cannot tell what the log
 * holds (index.json lost or not whole beside log files, none of its segments
 * there, a segment it does not list past the sealed part, open batches in a
 * sealed range whose segment failed) it refuses with STORE_DAMAGED; where it
 * can go on, the damage is reported (OP_UNREADABLE) and its positions are a
 * hole. A file
 * the scrub journal names is read as the journal says (the rewrite is
 * finished), once the journal passes its checks.
 *
 * @throws SyncomError STORE_DAMAGED, naming the file.
 */
export async function loadLog(log: OpLog, options: OpLogOptions): Promise<LogEntry[]> {
  const { backend } = options;
  await backend.mkdir(OPEN_DIR);
  const open = await openFileNames(backend);
  const index = await readIndexOf(backend);
  if ('index' in index) adopt(log, index.index);
  else await refuseOverFiles(backend, open, index.fault);
  // A purge's rewrite a crash cut short is finished first, and read as finished where the backend may not be written (the CLI's).
  const journal = await finishScrub(backend, { segments: log.segments, open: new Set(open), openPacked: (p) => log.openPacked(p) }, {
    durable: options.durable === true,
    onFault: (detail) => report(options, SCRUB_FILE, `log/scrub.json, a purge's journal, is not to be trusted: ${detail}`),
  });
  const read = readThrough(backend, journal);
  const sealed = await loadSegments(log, read, options);
  checkVector(log, sealed, options);
  takeRaised(log, options);
  const tail = await loadOpen(log, open, read, sealed);
  await sweepSegments(log, options, sealed.to);
  return tail;
}
