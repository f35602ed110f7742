import type { LogIndex } from '../log/files';
import { chainBlock } from '../log/op-log';
import { isScrubbed } from '../op/payload';
import type { Findings } from './findings';
import type { Decoded } from './verify-entries';
import type { ReadLogFile } from './verify-files';

/**
 * The audit chain (GUAR-23), recomputed over the open batches: each batch's
 * block is SHA-256 over the previous head and its ops as appended, starting
 * from the sealed part's head in index.json. A sealed segment joins its
 * batches without their boundaries, so its blocks cannot be recomputed: its
 * head is checked against index.json instead (verify-files). A purge rewrites
 * the ops of a batch under its block, so a batch holding a scrubbed op (or a
 * sealed op there is no key to open) that no longer re-hashes is a warning,
 * any other mismatch a fault. Returns the head the log ends on; undefined
 * when the last batch cannot be read.
 */
export function checkChain(index: LogIndex, files: readonly ReadLogFile[], decoded: Decoded, f: Findings): string | undefined {
  const scrubbed = new Set(decoded.ops.filter((o) => isScrubbed(o.op)).map((o) => o.file));
  let prev: string | undefined = index.chain ?? '';
  for (const file of files) {
    if (file.kind !== 'batch') continue;
    if (!file.ops) { prev = undefined; continue; }
    if (file.chain === undefined) { f.warn(file.path, 'carries no chain block'); prev = undefined; continue; }
    const block: string | undefined = prev === undefined ? undefined : chainBlock(prev, JSON.stringify(file.ops));
    if (block === undefined) f.warn(file.path, 'not re-hashed: the batch before it cannot be read');
    else if (block !== file.chain && scrubbed.has(file)) f.warn(file.path, 'holds ops a purge scrubbed in place: its block no longer re-hashes');
    else if (block !== file.chain && decoded.closedIn.has(file)) f.warn(file.path, 'does not re-hash, and holds sealed ops there is no key to open (a purge of one would explain it)');
    else if (block !== file.chain) f.fault(file.path, 'its chain block does not re-hash: the batch changed after it was appended');
    prev = file.chain;
  }
  return prev;
}
