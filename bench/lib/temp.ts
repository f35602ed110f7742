import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | undefined;
let count = 0;

/** The process's temp root (os.tmpdir()/syncom-bench-*), created at the first call. */
function rootDir(): string {
  if (!root) {
    root = mkdtempSync(join(tmpdir(), 'syncom-bench-'));
    process.once('exit', removeTempRoot);
    // Ctrl-C ends the process without an 'exit' event unless a handler exits.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  }
  return root;
}

/** A fresh directory path for one storage, inside the temp root (open() creates it). */
export function tempPath(label: string): string {
  return join(rootDir(), `${label}-${++count}`);
}

/** Remove one storage's directory. */
export function removeTemp(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/** Remove the temp root and everything left in it (also runs at process exit). */
export function removeTempRoot(): void {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
}
