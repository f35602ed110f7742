import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { createFsBackend } from '../backend/fs-backend';
import { INDEX_FILE, INDEX_NEXT_FILE, type LogIndex, parseIndex } from '../log/files';
import { readScrubJournal, readThrough } from '../log/scrub-journal';
import { KEYS_DIR } from '../storage/keys';
import { CliError, EXIT_FAULTS } from './io';
import { readStoreFormat, refuseNewerFormat } from '../storage/store-format';
import { readOnlyBackend, type ReadOnlyBackend } from './read-only-backend';

/** A storage directory as the CLI found it, before any command reads it. */
export interface StorageDir {
  /** The absolute path. */
  root: string;
  backend: ReadOnlyBackend;
  /** log/index.json, parsed; undefined when it is missing or unreadable. */
  index?: LogIndex;
  /** Which of keys/sign-*.pem and keys/seal-*.pem are there. */
  keys: { sign: boolean; seal: boolean };
  /** The log file a purge was rewriting when its process died (log/scrub.json names it; reads show it finished). */
  scrubbing?: string;
}

const SUBDIRS = new Set(['log', 'keys', 'records', 'remote', 'open']);

async function kindOf(path: string): Promise<'dir' | 'file' | undefined> {
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/** A hint for the usual slip, naming a folder inside the storage: its parent is the storage. */
async function parentHint(root: string): Promise<string> {
  if (!SUBDIRS.has(basename(root))) return '';
  const up = basename(root) === 'open' ? dirname(dirname(root)) : dirname(root);
  return (await kindOf(`${up}/${INDEX_FILE}`)) === 'file' ? ` (did you mean ${up}?)` : '';
}

/**
 * Find the storage at `path` through a read-only fs backend: a directory
 * holding log/index.json or keys/ (open() makes both at the first open).
 *
 * @throws CliError exit 2 for a missing path, a file, or a directory that is no storage.
 * @throws SyncomError STORE_TOO_NEW for a store a later version wrote in a newer format.
 */
export async function findStorage(path: string): Promise<StorageDir> {
  const root = resolve(path);
  const kind = await kindOf(root);
  if (kind === undefined) throw new CliError(`${path}: no such directory`);
  if (kind === 'file') throw new CliError(`${path} is a file, not a storage directory`);
  const plain = readOnlyBackend(createFsBackend(root));
  // Before any file is judged by this version's layout: a later format may have moved what it looks for.
  refuseNewerFormat(await readStoreFormat(plain));
  // A purge's rewrite a crash cut short reads as open() finishes it (log/scrub-journal.ts).
  const journal = await readScrubJournal(plain);
  const backend: ReadOnlyBackend = journal ? { ...plain, read: readThrough(plain, journal) } : plain;
  const indexText = await backend.read(INDEX_FILE);
  const keyFiles = await backend.list(KEYS_DIR);
  if (indexText === undefined && keyFiles.length === 0) {
    throw new CliError(`${path} is not a syncom storage: it has no log/index.json and no keys/${await parentHint(root)}`);
  }
  const has = (name: string) => keyFiles.includes(`${name}-public.pem`) && keyFiles.includes(`${name}-private.pem`);
  // index.json torn or empty, its copy (written before it where writes may tear) as open() reads it (readIndexOf).
  const index = parseIndex(indexText) ?? parseIndex(await backend.read(INDEX_NEXT_FILE));
  return { root, backend, index, keys: { sign: has('sign'), seal: has('seal') }, ...(journal && { scrubbing: journal.path }) };
}

/**
 * What info, export and log need before they open the engine on a storage:
 * its index (else open() would start a new log epoch) and its signing pair
 * (else open() would make a new node id).
 *
 * @throws CliError exit 1 naming what is damaged.
 */
export function requireIntact(dir: StorageDir): LogIndex {
  if (!dir.index) throw new CliError(`${dir.root}: log/index.json is missing or unreadable; the storage is damaged (syncom verify tells more)`, EXIT_FAULTS);
  if (!dir.keys.sign) throw new CliError(`${dir.root}: keys/sign-public.pem or keys/sign-private.pem is missing; the node's identity is lost`, EXIT_FAULTS);
  return dir.index;
}
