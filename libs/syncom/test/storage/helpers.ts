import { internals } from '../../src/testing/internals';
import { applyPeerOps, createMemoryBackend, open, type OpenOptions, type Storage } from '../../src';
import { generateSealingKeys } from '../../src/op';
import type { Op } from '../../src/op/types';

// RSA key generation costs ~100 ms a node: the test nodes share one sealing pair
// (each still makes its own Ed25519 identity).
let sealing: ReturnType<typeof generateSealingKeys> | undefined;
async function sealingFiles(): Promise<Record<string, string>> {
  const k = await (sealing ??= generateSealingKeys());
  return { 'keys/seal-public.pem': k.publicPem, 'keys/seal-private.pem': k.privatePem };
}

/** A node on the memory backend with a settable wall clock. */
export interface TestNode {
  s: Storage;
  clock: { t: number };
}

let n = 0;

/** Open a node on a memory backend; `t` is its wall clock, settable through node.clock.t. */
export async function node(t = 1_000_000, options: Partial<OpenOptions> = {}): Promise<TestNode> {
  const clock = { t };
  const backend = createMemoryBackend({ files: await sealingFiles() });
  const s = await open({ path: `node-${n++}`, backend, now: () => clock.t, ...options });
  return { s, clock };
}

/** Every op in a storage's log, in log order. */
export function logOps(s: Storage): Op[] {
  return internals(s).log.read(0).map((e) => e.op);
}

/** Deliver ops (default: all of `from`'s log) to `to`, as a peer's page. */
export async function ship(from: Storage, to: Storage, ops: Op[] = logOps(from)) {
  return applyPeerOps(to, ops, { via: { url: `memory://${from.id.slice(0, 6)}`, node: from.id } });
}

/** Collect a storage's error events. */
export function errors(s: Storage): { code: string; field?: string }[] {
  const out: { code: string; field?: string }[] = [];
  s.on('error', (e) => out.push(e));
  return out;
}
