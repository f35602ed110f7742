import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main';
import type { CliStream } from '../../src/cli/io';

/** What one CLI run printed, and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** A stream that keeps what is written to it. */
export function collector(isTTY = false): CliStream & { text: string } {
  const s = { text: '', isTTY, write: (t: string) => { s.text += t; return true; } };
  return s;
}

/** Run the CLI in-process. */
export async function cli(...argv: string[]): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli(argv, { stdout, stderr });
  return { code, out: stdout.text, err: stderr.text };
}

const dirs: string[] = [];

/** A fresh temp directory, removed by cleanup(). */
export async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'syncom-cli-'));
  dirs.push(d);
  return d;
}

/** Remove every temp directory made by tempDir(). */
export async function cleanup(): Promise<void> {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

/** Every file under `root` with a hash of its bytes: two equal snapshots mean nothing changed. */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out[path.slice(root.length + 1)] = createHash('sha256').update(await readFile(path)).digest('hex');
  }
  return out;
}
