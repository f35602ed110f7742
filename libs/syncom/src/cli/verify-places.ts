import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeFileLabel, readNodeFile, REMOTE_DIR } from '../sync/dial/registry';
import type { Findings } from './findings';
import type { StorageDir } from './storage-dir';

/** The folders whose files open() reads or writes, and the names those files have. */
const FOLDERS: readonly [string, RegExp][] = [
  ['log', /\.json$/],
  ['log/open', /\.json$/],
  ['records', /\.json$/],
  ['keys', /\.pem$/],
  [REMOTE_DIR, /\.json$/],
];

/**
 * A directory where a file should be (`records/7.json/`): the backend's
 * listings show plain files only, so nothing else sees it, while open()
 * cannot read it, or fails every write made to its name. And a file where
 * one of the folders should be (`log/open`, `remote`), which verify passed.
 */
export async function checkPlaces(dir: StorageDir, f: Findings): Promise<void> {
  // A directory or FIFO at LOCK passed verify, and open() then failed (IO_ERROR: EISDIR, or not a regular file).
  const lock = await lstat(join(dir.root, 'LOCK')).catch(() => undefined);
  if (lock && !lock.isFile()) f.fault('LOCK', 'not a plain file: open() fails (IO_ERROR) on it');
  for (const [folder, name] of FOLDERS) {
    // A file where the folder should be: the listings read it as an empty folder, while open() fails (IO_ERROR) making it.
    const st = await stat(join(dir.root, folder)).catch(() => undefined);
    if (st && !st.isDirectory()) {
      f.fault(folder, 'a file where a folder should be: open() fails (IO_ERROR) on it');
      continue;
    }
    const entries = await readdir(join(dir.root, folder), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      // A registry file's name is its node's url: named as the other registry findings name it, credentials left out.
      const where = folder === REMOTE_DIR ? nodeFileLabel(e.name) : `${folder}/${e.name}`;
      if (!name.test(e.name)) continue;
      if (e.isDirectory()) f.fault(where, 'a directory where a file should be: open() cannot read it, or write over it');
      // A FIFO, socket or device: the listings show plain files only, so open() passes it by (a node left unregistered, a record file's records missing).
      else if (!e.isFile() && !e.isSymbolicLink()) f.fault(where, 'neither a file nor a folder (a FIFO, socket or device) where a file should be: open() passes it by as absent');
    }
  }
}

/**
 * The registry (remote/*.json). A file that cannot be read is a fault, not a
 * warning: open() leaves its node out, and with it the node's cursor and the
 * hold on this node's own ops it has not acknowledged yet, which retention
 * may then drop before they reach it (UNDELIVERABLE). Returns the files read.
 */
export async function checkRegistry(dir: StorageDir, f: Findings): Promise<number> {
  const names = (await dir.backend.list(REMOTE_DIR)).filter((n) => n.endsWith('.json'));
  for (const name of names) {
    const path = `${REMOTE_DIR}/${name}`;
    let read = true;
    try {
      // As open() reads it: a file it refuses (an `enabled` of "yes", scopes that are no names) had passed here.
      readNodeFile((await dir.backend.read(path)) ?? '');
    } catch {
      read = false;
    }
    if (!read) f.fault(nodeFileLabel(name), 'not a registry file (torn, or changed): open() forgets this registered node, its cursor and the own ops kept for it, until addNode() registers it again');
  }
  return names.length;
}
