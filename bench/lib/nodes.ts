import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryBackend, createMemoryLink, open } from '../../libs/syncom/src';
import { clockMs } from './child-server';
import type { Backend, HostUnit, Storage } from '../../libs/syncom/src';

let sealing: { publicKey: string; privateKey: string } | undefined;

/** One RSA sealing pair for every node of the process, as key files of a storage directory. */
export function sealingFiles(): Record<string, string> {
  sealing ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { 'keys/seal-public.pem': sealing.publicKey, 'keys/seal-private.pem': sealing.privateKey };
}

/**
 * A memory backend seeded with one RSA sealing pair shared by every node of
 * the process (as the sync tests do), so open() skips its 0.1–0.3 s RSA key
 * generation; each node still makes its own Ed25519 signing key.
 */
export function memoryBackend(): Backend {
  return createMemoryBackend({ files: sealingFiles() });
}

/** The same for an fs storage: the shared sealing pair written into `path`/keys before open(). */
export function seedFsKeys(path: string): void {
  mkdirSync(join(path, 'keys'), { recursive: true });
  for (const [file, text] of Object.entries(sealingFiles())) writeFileSync(join(path, file), text);
}

/** A node on a seeded memory backend, durable off. */
export function openNode(path: string): Promise<Storage> {
  return open({ path, backend: memoryBackend() });
}

/** A node whose dialer reaches `unit` over a memory link; no node registered yet. */
export function openDialer(path: string, unit: HostUnit): Promise<Storage> {
  return open({ path, backend: memoryBackend(), sync: { connect: () => createMemoryLink(unit) } });
}

/**
 * Resolve once `check()` holds, checked now and at each change, apply, sync and bootstrap event of
 * `storage` (keep it O(1): a vector lookup, never list()). Rejects after `ms`
 * with the last sync error seen, so a broken run fails instead of hanging.
 */
export function reached(storage: Storage, check: () => boolean, what: string, ms = 300_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let lastError: Error | undefined;
    const finish = (error?: Error) => {
      clearTimeout(timer);
      offs.forEach((off) => off());
      if (error) reject(error);
      else resolve();
    };
    const test = () => { if (check()) finish(); };
    // Not only 'change': a reader that fell behind catches up by a bootstrap whose last vector step changes no record.
    const offs = [
      storage.on('change', test), storage.on('apply', test), storage.sync.on('sync', test), storage.sync.on('bootstrap', test),
      storage.sync.on('error', (e) => { lastError = e; }),
    ];
    const timer = setTimeout(() => finish(new Error(`${what}: not reached in ${ms / 1000} s${lastError ? ` (last sync error: ${lastError.message})` : ''}`)), ms);
    if (check()) finish();
  });
}

/**
 * Register the hub on a dialer and resolve at its 'bootstrap' event, with the
 * records it joined. `node` is the hub's url, or its url and token.
 */
export function bootstrapFrom(dialer: Storage, node: string | { url: string; token?: string } = 'memory://hub', ms = 300_000): Promise<number> {
  const { url, token } = typeof node === 'string' ? { url: node, token: undefined } : node;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`bootstrap from ${url}: no 'bootstrap' event in ${ms / 1000} s`)); }, ms);
    const off = dialer.sync.on('bootstrap', (e) => { clearTimeout(timer); off(); resolve(e.records); });
    dialer.sync.addNode({ url, token }).catch((e: Error) => { clearTimeout(timer); off(); reject(e); });
  });
}

/**
 * Watch for `storage` to have applied `target` ops of `stream` (an absolute
 * count); resolves with the clockMs() stamp taken in the check that got there,
 * at the event itself, not when a promise settles later.
 */
export function armReached(storage: Storage, stream: string, target: number): Promise<number> {
  let at = 0;
  const check = () => {
    if ((storage.replica.committedVector[stream] ?? 0) < target) return false;
    at ||= clockMs();
    return true;
  };
  const armed = reached(storage, check, `${target} ops of ${stream} applied`).then(() => at);
  armed.catch(() => undefined);
  return armed;
}
