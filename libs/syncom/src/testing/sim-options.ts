import type { KeySpace } from './sim-ops';

/** Rounds of waiting (for idle nodes, for a quiet network) before a run is declared broken. */
export const MAX_ROUNDS = 200_000;

/** Options of Simulation.create. Every default is the CI tier's. */
export interface SimulationOptions {
  /** Seeds every choice of the run: the same seed replays the same run. */
  seed: number;
  /** 'mesh': every pair of nodes linked (node i dials node j > i); 'star': clients dial one hub. Default 'mesh'. */
  topology?: 'mesh' | 'star';
  /** Nodes of the mesh, or clients of the star (the hub comes on top). Default 5. */
  nodes?: number;
  /** Writes issued during the run. Default 1000. */
  writes?: number;
  /** The key space (default 4 records, 2 counter records). */
  keys?: Partial<KeySpace>;
  /** The highest drop probability a link is given (0..0.3 is the range). Default 0.3. */
  drop?: number;
  /** The highest duplicate probability a link is given. Default 0.5. */
  duplicate?: number;
  /** sync.maxSkew of every node; clocks are offset within ±maxSkew/2 so no stamp is refused. Default 60 s. */
  maxSkew?: number;
  /** Crash nodes (at once, or at their k-th I/O point to come) and reboot them. Default true. */
  crashes?: boolean;
  /** Cut links and split the network in two. Default true. */
  partitions?: boolean;
  /** Sign and verify ops. Default true. */
  signatures?: boolean;
  /**
   * Ops per push and per changes page, records per snapshot page. Default:
   * drawn per seed from 16, 32, 64, 64 (small pages page more; large ones
   * keep a run cheap).
   */
  pageSize?: number;
  /** The most inputs (writes, deliveries) handed to distinct nodes in one step. Default 3. */
  parallel?: number;
  /** sync.log.rollAfter of every node. Default 8. */
  rollAfter?: number;
  /** sync.retention.ops of every node (at least 1000, GUAR-28). Default the engine's (10,000). */
  retention?: number;
  /**
   * Purge records during the run (a fault step: a node purges, another
   * reconciles at once) and check that every node holds them purged and
   * scrubbed, however the purge reached it (OPS-10, OPS-11). Default false.
   */
  purges?: boolean;
  /**
   * With purges on, a purge step picks a counter record half the time, so a
   * purge races incs, updates and set adds of that record from every node
   * (OPS-9, OPS-10); a node no longer holding it skips writes to it. Default
   * false (the purge steps' draws stay as they were).
   */
  purgeCounters?: boolean;
  /**
   * Sealed records beside clear ones (GUAR-19): a quarter of a node's writes
   * to the r records go to its own record s<node> instead, sealed; the rest
   * run as usual. Checked: no node holds another's sealed record, the clear
   * records converge as ever, no acknowledged sealed write is lost and no
   * sealed seq names two ops. Default false.
   */
  sealed?: boolean;
  /**
   * Scope moves (star only): every node scopes records by field a (1: A,
   * 2: B, else global), and the last client carries only A, reads and never
   * writes; its reconciliations run while records move out of A. Checked:
   * the hub refuses nothing, and after healing the reader holds every A and
   * global record as the hub does. Default false.
   */
  scopes?: boolean;
  /**
   * Schema holds: one node runs schema version 1 with ahead 'hold', another
   * version 2 and writes whole records only; the rest run no schema. After
   * every step the v1 node holds no record of version 2 and logged nothing of
   * it unheld, however it came (GUAR-26); after healing it reopens with
   * version 2 and converges like the others. Default false.
   */
  holds?: boolean;
  /**
   * One owner per storage path: at every reboot a second open() of the
   * node's disk, before the old process's storage is closed and once the new
   * one is open, must fail with LOCKED, and the closed storage must have let
   * go of its dead disk. Default false.
   */
  owners?: boolean;
}

/** The options with every default filled in. */
export type SimSettings = Required<Omit<SimulationOptions, 'keys' | 'retention' | 'pageSize'>> & { keys: KeySpace; retention?: number; pageSize?: number };

/** Fill in the defaults (the page size, when not given, is drawn by the run). */
export function simSettings(o: SimulationOptions): SimSettings {
  return {
    seed: o.seed, topology: o.topology ?? 'mesh', nodes: o.nodes ?? 5, writes: o.writes ?? 1000,
    keys: { records: o.keys?.records ?? 4, counters: o.keys?.counters ?? 2 },
    drop: o.drop ?? 0.3, duplicate: o.duplicate ?? 0.5, maxSkew: o.maxSkew ?? 60_000,
    crashes: o.crashes ?? true, partitions: o.partitions ?? true, signatures: o.signatures ?? true,
    pageSize: o.pageSize, parallel: o.parallel ?? 3, rollAfter: o.rollAfter ?? 8, retention: o.retention,
    purges: o.purges ?? false, purgeCounters: o.purgeCounters ?? false, sealed: o.sealed ?? false, scopes: o.scopes ?? false, holds: o.holds ?? false,
    owners: o.owners ?? false,
  };
}

/** The nodes a topology links: [dialer, host] pairs, and how many nodes it has. */
export function edgesOf(s: SimSettings): { count: number; edges: [number, number][] } {
  if (s.topology === 'star') return { count: s.nodes + 1, edges: Array.from({ length: s.nodes }, (_, i) => [i + 1, 0]) };
  const edges: [number, number][] = [];
  for (let i = 0; i < s.nodes; i++) for (let j = i + 1; j < s.nodes; j++) edges.push([i, j]);
  return { count: s.nodes, edges };
}
