import { type Entry, entryText, joinEntries } from '../crdt';
import { canonicalJson } from '../op/canonical';
import { FLAG_HELD, FLAG_SEALED } from '../op/pack';
import { replayLog } from '../storage/load';
import { plainCipher, type RecordCipher, RecordJoin } from '../storage/record-file';
import { readRecordFile, recordFileNumbers } from '../storage/records';
import type { Findings } from './findings';
import { plural } from './format';
import type { StorageDir } from './storage-dir';
import type { Decoded } from './verify-entries';

/** What `syncom verify` made of records/. */
export interface RecordsCheck {
  /** Record files read. */
  files: number;
  /** Records they hold (ids). */
  records: number;
  /** Records checked against what the log's sealed part makes of them. */
  compared: number;
  /** Whether each was held to exactly the log's state (the log reaches back to its start and reads whole), or only to holding all of it. */
  exact: boolean;
  /** Sealed records left unchecked: no seal key pair to open them. */
  sealedUnchecked: number;
}

/** The record files joined per id as open() joins them, and the newest file holding each id. */
interface RecordFiles {
  entries: Map<string, Entry>;
  newest: Map<string, string>;
  sealed: Set<string>;
  files: number;
}

/** A sealed record as a record file holds it (sealed/record-cipher.ts): the id in clear, the entry boxed. */
const isSealedForm = (x: unknown): x is { id: string; sealed: string } =>
  typeof x === 'object' && x !== null && typeof (x as { id?: unknown }).id === 'string' && typeof (x as { sealed?: unknown }).sealed === 'string';

/** A record cipher for a reader with no seal key: a sealed entry is closed (counted in `closed`), not damage. */
export function keylessRecordCipher(closed: Set<string>): RecordCipher {
  return {
    ...plainCipher,
    open(x) {
      if (!isSealedForm(x)) return { entry: x, sealed: false };
      closed.add(x.id);
      return { entry: undefined, sealed: true };
    },
  };
}

/** Read every record file with the engine's reader; one that cannot be read, or holds entries that cannot, is a fault. */
async function readRecords(dir: StorageDir, cipher: RecordCipher, f: Findings): Promise<RecordFiles> {
  const join = new RecordJoin();
  const out: RecordFiles = { entries: join.entries, newest: new Map(), sealed: new Set(), files: 0 };
  for (const n of await recordFileNumbers(dir.backend)) {
    out.files++;
    const { path, parsed, sumFails } = await readRecordFile(dir.backend, n, cipher, out.sealed);
    if (!parsed) {
      f.fault(path, `${sumFails ? 'does not match its sum (changed after it was written)' : 'not a record file (torn, or changed)'}: open() rebuilds its records from what the log still holds`);
      continue;
    }
    if (parsed.unreadable > 0) f.fault(path, `${plural(parsed.unreadable, 'entry', 'entries')} cannot be read (changed, or sealed for another key): open() rebuilds their records from what the log still holds`);
    for (const x of parsed.list) {
      join.take(x);
      out.newest.set(x.id, path);
    }
  }
  join.finish();
  return out;
}

/** What the log says of the records: each record as its sealed part's ops make it, and which ids the rest touches. */
function logState(decoded: Decoded, sealed: Set<string>) {
  const touched = new Set<string>();
  const unsealed = new Set<string>();
  const held = new Set<string>();
  for (const { op, flags, file } of decoded.ops) {
    touched.add(op.id);
    if (flags & FLAG_SEALED) sealed.add(op.id);
    if (flags & FLAG_HELD) held.add(op.id);
    if (file.kind === 'batch') unsealed.add(op.id);
  }
  const state = new Map<string, Entry>();
  // The sealed part only: a batch is sealed once its records are written, so each record file holds at least this.
  replayLog(state, decoded.ops.filter((o) => o.file.kind === 'segment'), { sealed, committed: state });
  return { state, touched, unsealed, held };
}

const canon = (e: Entry): string => canonicalJson(JSON.parse(entryText(e)));

/**
 * The record files against the log (GUAR-7, GUAR-8): every record the
 * log's sealed part wrote must be in a record file, holding all of what
 * those ops make of it; where the log reaches back to position 1 and passed
 * every check (`exact`), exactly that, and no record file may hold a record
 * no op wrote. A record an open batch or a held op touched may hold more (open()
 * replays the first; a schema applied the second), and with a floor above 0
 * a record may hold what older ops wrote, so those are held only to holding
 * the log's state. Sealed records are skipped without the seal key. One
 * replay of the log and one join or comparison a record: linear.
 */
export async function checkRecords(dir: StorageDir, decoded: Decoded, cipher: RecordCipher | undefined, f: Findings): Promise<RecordsCheck> {
  // A log with faults of its own (an op changed or replaced) is no reference to hold records to exactly.
  const exact = f.faults === 0 && !!dir.index && dir.index.floor === 0 && ![...decoded.incomplete].some((x) => x.kind === 'segment');
  const closed = new Set<string>();
  const records = await readRecords(dir, cipher ?? keylessRecordCipher(closed), f);
  const { state, touched, unsealed, held } = logState(decoded, records.sealed);
  for (const [id, want] of state) {
    const have = records.entries.get(id);
    if (!have) {
      f.fault(`record ${id}`, 'the log wrote it, and no record file holds it: a record file lost (open() rebuilds it from the log)');
      continue;
    }
    const got = canon(have);
    const strict = exact && !unsealed.has(id) && !held.has(id) && !have.purged;
    if (strict ? got === canon(want) : canon(joinEntries(have, want)) === got) continue;
    const what = strict ? 'other than the log\'s ops make it' : 'without all the log\'s ops wrote of it';
    f.fault(`record ${id}`, `${records.newest.get(id)} holds it ${what}: a record file changed, or put back from an older copy`);
  }
  if (exact) {
    for (const [id] of records.entries) {
      if (!touched.has(id)) f.fault(`record ${id}`, `${records.newest.get(id)} holds a record no op in the log wrote: the log lost the ops that did (an open batch deleted or torn), or the file is another storage's`);
    }
  }
  if (closed.size > 0) f.warn('keys/', `${plural(closed.size, 'sealed record')} not compared with the log: no seal key pair to open them`);
  return { files: records.files, records: records.entries.size + closed.size, compared: state.size, exact, sealedUnchecked: closed.size };
}
