import { KEYS_DIR } from '../storage/keys';
import type { EntryCipher } from '../log/files';
import { loadPrivateKey, loadPublicKey, nodeIdOf } from '../op/keys';
import { createLogCipher } from '../sealed/log-cipher';
import { type Finding, Findings } from './findings';
import { plural } from './format';
import { type CliIo, EXIT_FAULTS, EXIT_OK, writeOut } from './io';
import { createProgress } from './progress';
import { findStorage, type StorageDir } from './storage-dir';
import { checkChain } from './verify-chain';
import { checkSealedPart, decodeAll } from './verify-entries';
import { readLogFiles } from './verify-files';
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
  faults: number;
  warnings: number;
  findings: Finding[];
}

/** The node id and the log cipher, from the storage's own keys when they are there and sound. */
async function keysOf(dir: StorageDir, f: Findings): Promise<{ ownId?: string; cipher?: EntryCipher }> {
  const read = async (name: string) => (await dir.backend.read(`${KEYS_DIR}/${name}.pem`)) as string;
  const out: { ownId?: string; cipher?: EntryCipher } = {};
  try {
    if (dir.keys.sign) out.ownId = nodeIdOf(loadPublicKey(await read('sign-public')));
  } catch {
    f.warn('keys/sign-public.pem', 'not an Ed25519 public key');
  }
  try {
    if (dir.keys.seal) out.cipher = createLogCipher({ sealPublic: loadPublicKey(await read('seal-public')), sealPrivate: loadPrivateKey(await read('seal-private')) });
  } catch {
    f.warn('keys/seal-*.pem', 'not a key pair: sealed ops cannot be opened');
  }
  return out;
}

/** Walk the storage's log: files, entries, streams, chain, digests and signatures. */
export async function verifyStorage(dir: StorageDir, progressTo: CliIo['stderr']): Promise<VerifyReport> {
  const f = new Findings();
  const { ownId, cipher } = await keysOf(dir, f);
  const { index, files } = await readLogFiles(dir, f);
  const decoded = decodeAll(files, index.epoch, cipher, f);
  if (decoded.closed) f.warn('keys/', `${plural(decoded.closed, 'sealed op')} not checked: no seal key pair to open them`);
  checkSealedPart(decoded.ops, index, f);
  checkStreams(decoded.ops, ownId, f);
  const chain = checkChain(index, files, decoded, f);
  const counts = await checkSignatures(decoded.ops, createProgress(progressTo, 'verify', decoded.ops.length), f);
  return {
    path: dir.root, epoch: index.epoch, segments: files.filter((x) => x.kind === 'segment').length, batches: files.filter((x) => x.kind === 'batch').length,
    ops: decoded.ops.length, ...counts, sealedUnchecked: decoded.closed, chain: chain ?? null, faults: f.faults, warnings: f.warnings, findings: f.list,
  };
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
    `result    ${r.faults ? plural(r.faults, 'fault') : 'OK'}${r.warnings ? `, ${plural(r.warnings, 'warning')}` : ''}`,
  ];
  return lines.join('\n') + '\n';
}

/**
 * `syncom verify <path> [--json]`: every op in the log checked against its
 * signature and the log's own consistency. Progress on stderr; exit 1 on any
 * fault, 0 when there is none (warnings do not fail it).
 */
export async function verifyCommand(path: string, json: boolean, io: CliIo): Promise<number> {
  const report = await verifyStorage(await findStorage(path), io.stderr);
  await writeOut(io.stdout, json ? JSON.stringify(report, null, 2) + '\n' : formatVerify(report));
  return report.faults ? EXIT_FAULTS : EXIT_OK;
}
