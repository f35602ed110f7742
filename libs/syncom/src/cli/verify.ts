import { holderProven, lockHolder } from '../backend/fs-lock';
import { isSyncomError } from '../errors';
import { SCRUB_FILE } from '../log/scrub-journal';
import { KEYS_DIR, loadKeys } from '../storage/keys';
import type { EntryCipher } from '../log/files';
import { loadPrivateKey, loadPublicKey, nodeIdOf } from '../op/keys';
import { createLogCipher } from '../sealed/log-cipher';
import { createRecordCipher } from '../sealed/record-cipher';
import type { RecordCipher } from '../storage/record-file';
import { type Finding, Findings } from './findings';
import { plural } from './format';
import { type CliIo, EXIT_FAULTS, EXIT_OK, textLines, writeOut } from './io';
import { createProgress } from './progress';
import { findStorage, type StorageDir } from './storage-dir';
import { checkChain } from './verify-chain';
import { checkIndexVector, checkSealedPart, decodeAll } from './verify-entries';
import { readLogFiles, sealHashFaults } from './verify-files';
import { checkPlaces, checkRegistry } from './verify-places';
import { checkRecords, type RecordsCheck } from './verify-records';
import { checkSignatures } from './verify-signatures';
import { checkStreams } from './verify-streams';

/** What `syncom verify --json` prints. */
export interface VerifyReport {
  path: string;
  epoch: string;
  segments: number;
  batches: number;
  ops: number;
  signed: number;
  unsigned: number;
  /** Sealed ops not checked: no seal key to open them. */
  sealedUnchecked: number;
  /** The chain head the log ends on; null when its last batch cannot be read. */
  chain: string | null;
  /** records/ against the log. */
  records: RecordsCheck;
  /** Registry files (remote/*.json) read. */
  nodes: number;
  faults: number;
  warnings: number;
  findings: Finding[];
}

/** The node id, and the log's and the record files' ciphers, from the storage's own keys when they are there and sound. */
async function keysOf(dir: StorageDir, f: Findings): Promise<{ ownId?: string; cipher?: EntryCipher; records?: RecordCipher }> {
  const read = async (name: string) => (await dir.backend.read(`${KEYS_DIR}/${name}.pem`)) as string;
  const out: { ownId?: string; cipher?: EntryCipher; records?: RecordCipher } = {};
  // The pairs as open() takes them (the backend writes nothing): a private half that is no key, halves that do not
  // match, or a pair missing beside the log are faults; verify had passed such stores, which open() refuses.
  // A sealing pair left out of the copy verified is no fault here: its sealed ops are skipped with a warning (below).
  await loadKeys(dir.backend).catch((e: unknown) => {
    const file = String((e as { file?: unknown }).file ?? KEYS_DIR);
    if (!isSyncomError(e, 'STORE_DAMAGED')) throw e;
    if (!(file.startsWith(`${KEYS_DIR}/seal-`) && !dir.keys.seal)) f.fault(file, e.message);
  });
  try {
    if (dir.keys.sign) out.ownId = nodeIdOf(loadPublicKey(await read('sign-public')));
  } catch {
    f.warn('keys/sign-public.pem', 'not an Ed25519 public key');
  }
  try {
    if (dir.keys.seal) {
      const keys = { sealPublic: loadPublicKey(await read('seal-public')), sealPrivate: loadPrivateKey(await read('seal-private')) };
      out.cipher = createLogCipher(keys);
      // Only read with: no id is sealed for writing.
      out.records = createRecordCipher(keys, () => false);
    }
  } catch {
    f.warn('keys/seal-*.pem', 'not a key pair: sealed ops cannot be opened');
  }
  return out;
}

/**
 * Walk the storage: the log's files, entries, streams, chain, digests and
 * signatures; the record files against the log; the registry files. A file
 * the OS would not let it read is a fault at that path.
 */
export async function verifyStorage(dir: StorageDir, progressTo: CliIo['stderr'], holder?: number): Promise<VerifyReport> {
  const f = new Findings();
  const { ownId, cipher, records: recordCipher } = await keysOf(dir, f);
  const { index, files } = await readLogFiles(dir, f);
  // A purge's journal that fails its checks is let go by open() (reported there): damage to say here too.
  if (dir.scrubbing === undefined && (await dir.backend.exists(SCRUB_FILE))) f.fault(SCRUB_FILE, "a purge's journal that fails its checks (its hash, or the file it names): open() lets it go, and the file it names is read as it is");
  const decoded = decodeAll(files, index.epoch, cipher, f);
  if (decoded.closed) f.warn('keys/', `${plural(decoded.closed, 'sealed op')} not checked: no seal key pair to open them`);
  checkSealedPart(decoded.ops, index, f);
  checkIndexVector(decoded.ops, files, index, decoded, f, ownId);
  checkStreams(decoded.ops, ownId, f);
  const chain = checkChain(index, files, decoded, f);
  const counts = await checkSignatures(decoded.ops, createProgress(progressTo, 'verify', decoded.ops.length), f);
  sealHashFaults(files, index.epoch, f);
  const records = holder === undefined ? await checkRecords(dir, decoded, recordCipher, f) : skipRecords(holder, f);
  const nodes = await checkRegistry(dir, f);
  await checkPlaces(dir, f);
  for (const [path, why] of dir.backend.failed) f.unreadable(path, why);
  return {
    path: dir.root, epoch: index.epoch, segments: files.filter((x) => x.kind === 'segment').length, batches: files.filter((x) => x.kind === 'batch').length,
    ops: decoded.ops.length, ...counts, sealedUnchecked: decoded.closed, chain: chain ?? null, records, nodes, faults: f.faults, warnings: f.warnings, findings: f.kept,
  };
}

/**
 * records/ is not held to the log while a process has the storage open: it
 * appends and writes record files as verify reads, so the two it reads need
 * not be of one moment.
 */
function skipRecords(holder: number, f: Findings): RecordsCheck {
  f.warn('records/', `not compared with the log: process ${holder} has the storage open and writes both while this reads`);
  return { files: 0, records: 0, compared: 0, exact: false, sealedUnchecked: 0 };
}

/** The findings (at most 100 lines) and a summary. */
export function formatVerify(r: VerifyReport): string {
  const findings = new Findings();
  findings.list.push(...r.findings);
  const lines = [
    ...findings.lines(100),
    `verify ${r.path}: epoch ${r.epoch}, ${plural(r.segments, 'segment')} and ${plural(r.batches, 'open batch', 'open batches')}`,
    `ops       ${r.ops} (${r.signed} signed, ${r.unsigned} unsigned${r.sealedUnchecked ? `, ${r.sealedUnchecked} sealed unchecked` : ''})`,
    `chain     ${r.chain ?? '(unknown: the last batch cannot be read)'}`,
    `records   ${plural(r.records.records, 'record')} in ${plural(r.records.files, 'file')}, ${r.records.compared} compared with the log${r.records.exact ? '' : ' (for what the log holds of them)'}`,
    `result    ${r.faults ? plural(r.faults, 'fault') : 'OK'}${r.warnings ? `, ${plural(r.warnings, 'warning')}` : ''}`,
  ];
  return textLines(lines);
}

/**
 * `syncom verify <path> [--json]`: every op in the log checked against its
 * signature and the log's own consistency, the record files against the
 * log, the registry files read. Progress on stderr; exit 1 on any
 * fault, 0 when there is none (warnings do not fail it).
 */
export async function verifyCommand(path: string, json: boolean, io: CliIo): Promise<number> {
  const dir = await findStorage(path);
  const holder = await lockHolder(dir.root).catch(() => undefined);
  // The records are left uncompared only for a writer alive on this machine (its records may run ahead of what
  // was read): a LOCK naming another host cannot be checked, and one written by hand (or come with a backup),
  // even naming a live pid with no start time, had switched the records check off, a tampered record passing.
  const live = holder && holderProven(holder) ? holder.pid : undefined;
  const report = await verifyStorage(dir, io.stderr, live);
  await writeOut(io.stdout, json ? JSON.stringify(report, null, 2) + '\n' : formatVerify(report));
  return report.faults ? EXIT_FAULTS : EXIT_OK;
}
