import { formatEventId } from '../log/event-id';
import type { EntryCipher, LogIndex } from '../log/files';
import { FLAG_GRANTED } from '../log/flags';
import { FLAG_SEALED, FLAGS_SLOT, MAX_LOGGED_DEPTH, unpackEntry, unpackOp } from '../op/pack';
import { keyOrigin, type Op, opStreamKey } from '../op/types';
import type { Findings } from './findings';
import type { ReadLogFile } from './verify-files';

/** One logged op, decoded, at its place in the log. */
export interface LoggedOp {
  /** Its event id. */
  where: string;
  pos: number;
  op: Op;
  flags: number;
  file: ReadLogFile;
  /** Entries before it, since the op before it, could not be read: its streams start afresh here. */
  afterBreak?: true;
}

/** What decoding made of the files. */
export interface Decoded {
  ops: LoggedOp[];
  /** Sealed entries left closed: no seal key to open them. */
  closed: number;
  /** Files holding a sealed entry left closed (their chain block cannot be judged, see verify-chain). */
  closedIn: Set<ReadLogFile>;
  /** An unreadable file or entry since the last op decoded. */
  broken: boolean;
  /** Files that are torn, or hold an entry that could not be read or a hole: their ops are not all in `ops`. */
  incomplete: Set<ReadLogFile>;
}

const SEALED_LENGTH = 19;

/** The 19-slot form the log cipher writes a sealed entry in (sealed/log-cipher.ts). */
const isSealedForm = (p: unknown): p is unknown[] =>
  Array.isArray(p) && p.length === SEALED_LENGTH && Number.isSafeInteger(p[FLAGS_SLOT]) && ((p[FLAGS_SLOT] as number) & FLAG_SEALED) !== 0;

/** Why an entry does not unpack, in the words of the engine's own decoder. */
function whyMalformed(packed: unknown): string {
  const c = unpackOp(packed);
  if (!c.ok) return c.reason;
  // unpackOp takes it, so unpackEntry refused its flags or its nesting.
  const flags: unknown = Array.isArray(packed) ? packed[FLAGS_SLOT] ?? 0 : 0;
  return Number.isSafeInteger(flags) && (flags as number) >= 0 ? `its payload nests deeper than ${MAX_LOGGED_DEPTH} levels` : 'flags: a non-negative integer';
}

/** Record a fault at an entry that could not be read: the streams start afresh after it. */
function unreadable(out: Decoded, f: Findings, where: string, why: string, file: ReadLogFile): void {
  f.fault(where, why);
  out.broken = true;
  out.incomplete.add(file);
}

/** Decode one file's entries with the engine's decoder (and the log cipher for sealed ones, when the key is there). */
function decodeFile(file: ReadLogFile, epoch: string, cipher: EntryCipher | undefined, f: Findings, out: Decoded): void {
  let holes = 0;
  (file.ops ?? []).forEach((raw, i) => {
    const pos = file.from + i;
    const where = formatEventId(epoch, pos);
    if (raw === null) { holes++; return; }
    if (isSealedForm(raw) && !cipher) { out.closed++; out.closedIn.add(file); return; }
    const packed = isSealedForm(raw) ? cipher?.open(raw) : raw;
    if (packed === undefined) return unreadable(out, f, where, 'a sealed entry that does not open with keys/seal-private.pem: changed, or sealed for another key', file);
    const e = unpackEntry(packed);
    if (!e) return unreadable(out, f, where, `a malformed entry (${whyMalformed(packed)})`, file);
    out.ops.push({ where, pos, op: e.op, flags: e.flags, file, ...(out.broken ? { afterBreak: true as const } : {}) });
    out.broken = false;
  });
  // A rewrite writes back as read every entry the load could not take (damaged, or sealed and not opened), so a hole
  // is written only for such an entry whose record the rewrite purged, for a batch left out for its chain block and
  // then sealed (docs/guarantees.md), or for a damaged entry an earlier version's rewrite dropped.
  if (holes) {
    f.warn(file.path, `${holes} empty slot(s): entries lost to earlier damage, or unreadable ones a purge of their record erased`);
    out.incomplete.add(file);
  }
}

/** Decode every readable file's entries, in log order. */
export function decodeAll(files: readonly ReadLogFile[], epoch: string, cipher: EntryCipher | undefined, f: Findings): Decoded {
  const out: Decoded = { ops: [], closed: 0, closedIn: new Set(), broken: false, incomplete: new Set() };
  for (const file of files) {
    // A torn file is one fault (verify-files); the streams it hid must not each report a gap after it.
    if (!file.ops) {
      out.broken = true;
      out.incomplete.add(file);
    } else decodeFile(file, epoch, cipher, f, out);
  }
  return out;
}

/**
 * The sealed part against index.json: each segment's ops within the stamps
 * it lists, and covered by the vector (or, for sealed ops, by sealedSeq).
 */
export function checkSealedPart(ops: readonly LoggedOp[], index: LogIndex, f: Findings): void {
  const segments = new Map(index.segments.map((s) => [s.from, s]));
  for (const { where, op, flags, file } of ops) {
    const seg = file.kind === 'segment' ? segments.get(file.from) : undefined;
    if (!seg) continue;
    if (op.ts < seg.minTs || op.ts > seg.maxTs) f.fault(where, `stamp ${op.ts} is outside its segment's ${seg.minTs}..${seg.maxTs} in index.json`);
    const sealed = (flags & FLAG_SEALED) !== 0;
    const covered = sealed ? (index.sealedSeq ?? 0) : (index.vector[streamOf(op, 0)] ?? 0);
    if (op.seq > covered) f.fault(where, `seq ${op.seq} is beyond what index.json's ${sealed ? 'sealedSeq' : 'vector'} covers (${covered})`);
  }
}

/**
 * index.json's vector against the counts its sealed part makes (seqs and
 * granted advances), as open() checks it: where every segment read whole
 * and shows a stream's count (no floor yet, or an op of the stream held), a
 * count that differs is a fault (open() reports it and takes the log's).
 */
export function checkIndexVector(ops: readonly LoggedOp[], files: readonly ReadLogFile[], index: LogIndex, decoded: Decoded, f: Findings, ownId?: string): void {
  const segments = files.filter((x) => x.kind === 'segment');
  if (segments.length !== index.segments.length || segments.some((x) => decoded.incomplete.has(x))) return;
  const counts = new Map<string, number>();
  const withOps = new Set<string>();
  const raise = (k: string, n: number) => { if (!((counts.get(k) ?? 0) >= n)) counts.set(k, n); };
  for (const { op, flags, file } of ops) {
    if (file.kind !== 'segment') continue;
    if (flags & FLAG_GRANTED && op.vector) for (const k in op.vector) raise(k, op.vector[k]);
    if (flags & FLAG_SEALED) continue;
    raise(opStreamKey(op), op.seq);
    withOps.add(opStreamKey(op));
  }
  for (const k of new Set([...Object.keys(index.vector), ...counts.keys()])) {
    const n = counts.get(k) ?? 0;
    const said = Object.hasOwn(index.vector, k) ? index.vector[k] : 0;
    // Past the floor, as open() judges it: a peer's count above what its ops show may be a dropped advance's.
    const own = ownId !== undefined && keyOrigin(k) === ownId;
    if (said === n || (index.floor > 0 && (!withOps.has(k) || (!own && said > n)))) continue;
    f.fault('log/index.json', `its vector says ${said} for stream ${k}, the sealed log holds ${n}: changed after it was written (open() takes the log's)`);
  }
}

/** The stream an op runs in: its vector key (origin, @scope, <from), or the origin's sealed stream. */
export function streamOf(op: Op, flags: number): string {
  return flags & FLAG_SEALED ? `${op.origin}#sealed` : opStreamKey(op);
}
