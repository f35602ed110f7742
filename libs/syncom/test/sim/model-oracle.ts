import { internals } from '../../src/testing/internals';
import { applyPeerOps, open, type Storage } from '../../src';
import type { OpenOptions } from '../../src/storage/options';
import { createMemoryBackend } from '../../src/backend';
import { plainEntry } from '../../src/crdt';
import { canonicalJson, FLAG_SEALED, packOps, unpackOps } from '../../src/op';
import { type Op, opStreamKey } from '../../src/op/types';
import { mulberry32 } from '../../src/backend/memory-damage';

/** The sealed record of node i (the sealed mode): its writer's alone, so no other node may hold it (GUAR-19). */
export const sealedId = (node: number) => `z${node}`;
const isSealedId = (id: string) => /^z\d+$/.test(id);

/**
 * Every op any node of the model ever logged, once per stream position,
 * taken as each log appends it: a node's log may drop it later (retention),
 * or put it back from an older copy (a rewind), and the oracle must still
 * see it. Sealed ops run in a stream no vector holds and never leave their
 * node, and the merges of a bootstrap (`origin<host`) are each node's own
 * joins of what it was served: neither is a peer's op.
 */
export class OpArchive {
  private readonly byKey = new Map<string, Op[]>();

  /** Archive what this node's log appends from now on. */
  watch(s: Storage): void {
    const log = internals(s).log;
    log.appended.add((from, to) => {
      for (const e of log.read(from - 1, to - from + 1)) {
        const key = opStreamKey(e.op);
        if (key.includes('<') || e.flags & FLAG_SEALED) continue;
        const list = this.byKey.get(key) ?? [];
        list[e.op.seq] ??= e.op;
        this.byKey.set(key, list);
      }
    });
  }

  /** The archive's ops in a seeded interleaving (each stream in order) with copies, packed and unpacked as on the wire. */
  interleaved(seed: number): Op[] {
    const streams = [...this.byKey.values()].map((l) => l.filter(Boolean));
    const rng = mulberry32(seed);
    const out: Op[] = [];
    const at = streams.map(() => 0);
    for (let left = streams.reduce((n, s) => n + s.length, 0); left > 0; left--) {
      const live = streams.map((_, i) => i).filter((i) => at[i] < streams[i].length);
      const i = live[Math.floor(rng() * live.length)];
      out.push(streams[i][at[i]++]);
      if (rng() < 0.15) out.push(out[Math.floor(rng() * out.length)]);
    }
    return unpackOps(packOps(out)).ops;
  }
}

/** A node's listed records (data and meta) and merge states, by id, leaving out the sealed records (each node's own). */
export async function listedState(s: Storage): Promise<string> {
  const records = (await s.list()).filter((r) => !isSealedId(r.id));
  const entries = [...internals(s).committer.committed].filter(([id]) => !isSealedId(id)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => plainEntry(e));
  return canonicalJson({ records, entries });
}

/** The sealed records a node holds or knows of (a record, a merge state, a log entry), other than its own. */
export function foreignSealed(s: Storage, node: number): string[] {
  const ids = new Set([...internals(s).committer.committed.keys(), ...internals(s).log.read(0).map((e) => e.op.id)]);
  return [...ids].filter((id) => isSealedId(id) && id !== sealedId(node));
}

/**
 * A fresh node fed every archived op through applyPeerOps, in the
 * interleaving `seed` draws: its listed records and merge states, read
 * once live and once more from its record files after a reopen.
 */
export async function oracleOf(ops: Op[], options: Omit<OpenOptions, 'path' | 'backend'>): Promise<{ live: string; reopened: string }> {
  const all = { ...options, path: 'oracle', backend: createMemoryBackend() };
  let s = await open(all);
  await applyPeerOps(s, ops, { via: { url: 'memory://all', node: 'all' } });
  const live = await listedState(s);
  await s.close();
  s = await open(all);
  const reopened = await listedState(s);
  await s.close();
  return { live, reopened };
}
