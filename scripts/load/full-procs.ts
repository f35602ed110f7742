import type { Vector } from 'syncom';
import type { FromFull, FullReport, ToFull } from './full-proc';
import type { ConnectStats } from './peers';
import { forkLoadChild, Proc } from './peer-procs';

/** What the full peers came to once settled. */
export interface FullSettled {
  notConverged: number;
  peers: FullReport[];
  /** The process's CPU time so far, ms. */
  cpuMs: number;
}

/**
 * The run's full peers in a child process of their own (full-proc.ts): each
 * verifies and applies every op, which the parent, busy timing deliveries,
 * must not pay for. Driven phase by phase like the raw peers' processes.
 */
export class FullProc {
  private constructor(private readonly proc: Proc<FromFull, ToFull>) {}

  /** Forks the process and opens a full peer for each of `indices` (`writesOf` their writes). */
  static async start(indices: number[], writesOf: (i: number) => number, o: { url: string; token: string; ramp: number; seconds: number }): Promise<FullProc> {
    const proc = new Proc<FromFull, ToFull>(forkLoadChild('scripts/load/full-proc.ts'));
    proc.send({ t: 'init', indices, writes: indices.map(writesOf), url: o.url, token: o.token, ramp: o.ramp, seconds: o.seconds });
    await proc.next('ready');
    return new FullProc(proc);
  }

  async ramp(): Promise<ConnectStats & { cpuMs: number }> {
    this.proc.send({ t: 'ramp' });
    const c = await this.proc.next('connected');
    return { ms: c.ms, failed: new Map(c.failed), wallMs: c.wallMs, cpuMs: c.cpuMs };
  }

  async write(): Promise<{ wallMs: number; lastMs: number; cpuMs: number }> {
    this.proc.send({ t: 'write' });
    const { t: _t, ...w } = await this.proc.next('written');
    return w;
  }

  /** Resolves once the hub acknowledged every write of the full peers, or after `ms`. */
  async pushed(ms: number): Promise<void> {
    this.proc.send({ t: 'pushed', ms });
    await this.proc.next('pushed');
  }

  /** Waits (bounded by `ms`) until every full peer holds `vector`; what they came to. */
  async settle(vector: Vector, ms: number): Promise<FullSettled> {
    this.proc.send({ t: 'settle', vector, ms });
    const { t: _t, ...s } = await this.proc.next('settled');
    return s;
  }

  close(): Promise<void> {
    return this.proc.close({ t: 'close' });
  }
}
