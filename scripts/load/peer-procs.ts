import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { Vector } from 'syncom';
import type { Delivery, DeliveryFigures } from './delivery';
import type { ConnectStats } from './peers';
import type { FromChild, PeerReport, ToChild } from './peer-proc';

const ROOT = join(__dirname, '..', '..');

/**
 * A load child process: `npm run load`'s TypeScript run by node with the sources' resolver, its output on ours.
 * LOAD_PEER_ARGS adds node flags to every peer process (`--cpu-prof --cpu-prof-dir=DIR`), as LOAD_HUB_ARGS does to the hub.
 */
export function forkLoadChild(script: string): ChildProcess {
  const flags = (process.env.LOAD_PEER_ARGS ?? '').split(' ').filter(Boolean);
  return fork(join(ROOT, script), [], { execArgv: [...flags, '-r', join(ROOT, 'scripts/register-src.js')], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** One child process of peers, and the replies it sent that no one took yet; `intercept` takes the messages that are no reply. */
export class Proc<F extends { t: string } = FromChild, M = ToChild> {
  private readonly replies = new Map<string, ((m: F) => void)[]>();
  private readonly early = new Map<string, F[]>();
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess, intercept: (from: Proc<F, M>, m: F) => boolean = () => false) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.on('message', (m: F) => {
      if (intercept(this, m)) return;
      const waiting = this.replies.get(m.t)?.shift();
      if (waiting) waiting(m);
      else this.early.set(m.t, [...(this.early.get(m.t) ?? []), m]);
    });
  }

  send(m: M): void {
    if (this.child.connected) this.child.send(m as object);
  }

  /** The next reply of type `t` (rejects if the process exits first). */
  next<T extends F['t']>(t: T): Promise<Extract<F, { t: T }>> {
    const kept = this.early.get(t)?.shift();
    if (kept) return Promise.resolve(kept as Extract<F, { t: T }>);
    return new Promise((resolve, reject) => {
      this.replies.set(t, [...(this.replies.get(t) ?? []), resolve as (m: F) => void]);
      void this.exited.then((code) => reject(new Error(`a load peer process exited (${code}) before it said ${t}`)));
    });
  }

  /** Asks the process to close its peers and waits for it to end (SIGKILL for one that does not go within 10 s). */
  async close(message: M): Promise<void> {
    this.send(message);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

const sumCpu = (all: { cpuMs: number }[]) => all.reduce((n, m) => n + m.cpuMs, 0);

/** What the raw peers of every process came to once settled. */
export interface ProcsSettled {
  notConverged: number;
  holes: number;
  errors: Map<string, number>;
  peers: PeerReport[];
  delivery: DeliveryFigures[];
  /** CPU time of every process so far, ms. */
  cpuMs: number;
  /** Pages the processes decoded, and pages they took already decoded for another peer. */
  pages: { decoded: number; spliced: number; reused: number };
}

/**
 * How long the forked peer processes may take to say ready: each makes a key
 * per peer at init, 1,500 in about half a second of CPU, which a loaded
 * machine stretches to seconds of wall time, never to this.
 */
const READY_MS = 60_000;

/**
 * Resolves once every process said ready; rejects, naming the silent ones,
 * as soon as one exits first or when READY_MS passed.
 */
async function allReady(procs: Proc[]): Promise<void> {
  const silent = new Set(procs);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`load peer processes did not say ready within ${READY_MS / 1000} s: ${[...silent].map((p) => p.child.pid).join(', ')} of ${procs.length}`)), READY_MS);
  });
  try {
    await Promise.race([Promise.all(procs.map((p) => p.next('ready').then(() => void silent.delete(p)))), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The raw peers of a run spread over `n` child processes (peer-proc.ts).
 * Acks of writes are relayed between them (and to `delivery`, the parent's),
 * so each times the deliveries its peers see from the writers' acks.
 */
export class PeerProcs {
  private constructor(private readonly procs: Proc[]) {}

  /**
   * Forks the processes and hands each its share of `indices` (and of the writes).
   * `url` may list several hubs (a cluster test): process k dials url[k % url.length].
   * `script`: peer-proc.ts already bundled to JavaScript, forked without scripts/register-src.js (it starts in about a third of the CPU time).
   */
  static async start(n: number, indices: number[], writesOf: (i: number) => number, o: { url: string | string[]; token: string; ramp: number; seconds: number; script?: string }, delivery: Delivery): Promise<PeerProcs> {
    const procs: Proc[] = [];
    const relay = (from: Proc, m: FromChild) => {
      if (m.t !== 'acks') return false;
      for (const p of procs) if (p !== from) p.send({ t: 'acks', list: m.list });
      for (const [k, at] of m.list) delivery.ack(k, at);
      return true;
    };
    const forkOne = () => o.script ? fork(o.script, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }) : forkLoadChild('scripts/load/peer-proc.ts');
    const share = (k: number) => indices.filter((_, j) => j % n === k);
    for (let k = 0; k < n; k++) {
      procs.push(new Proc(forkOne(), relay));
      procs[k].send({
        t: 'init', indices: share(k), writes: share(k).map(writesOf), url: typeof o.url === 'string' ? o.url : o.url[k % o.url.length], token: o.token, ramp: Math.max(1, Math.ceil(o.ramp / n)), seconds: o.seconds,
      });
    }
    // A start that fails leaves no process behind.
    try {
      await allReady(procs);
    } catch (e) {
      for (const p of procs) p.child.kill('SIGKILL');
      throw e;
    }
    return new PeerProcs(procs);
  }

  /** Every process connects its peers; the connect times as one. */
  async ramp(): Promise<ConnectStats & { cpuMs: number }> {
    this.procs.forEach((p) => p.send({ t: 'ramp' }));
    const all = await Promise.all(this.procs.map((p) => p.next('connected')));
    const failed = new Map<string, number>();
    for (const c of all) for (const [code, n] of c.failed) failed.set(code, (failed.get(code) ?? 0) + n);
    return { ms: all.flatMap((c) => c.ms), failed, wallMs: Math.max(0, ...all.map((c) => c.wallMs)), cpuMs: sumCpu(all) };
  }

  /** Every process makes its writes in the window. */
  async write(): Promise<{ wallMs: number; lastMs: number; cpuMs: number }> {
    this.procs.forEach((p) => p.send({ t: 'write' }));
    const all = await Promise.all(this.procs.map((p) => p.next('written')));
    return { wallMs: Math.max(0, ...all.map((w) => w.wallMs)), lastMs: Math.max(0, ...all.map((w) => w.lastMs)), cpuMs: sumCpu(all) };
  }

  /** Waits (bounded by `ms`) until every peer holds `vector`; what they came to. */
  async settle(vector: Vector, ms: number): Promise<ProcsSettled> {
    this.procs.forEach((p) => p.send({ t: 'settle', vector, ms }));
    const all = await Promise.all(this.procs.map((p) => p.next('settled')));
    const errors = new Map<string, number>();
    for (const s of all) for (const [code, n] of s.errors) errors.set(code, (errors.get(code) ?? 0) + n);
    return {
      notConverged: all.reduce((n, s) => n + s.notConverged, 0), holes: all.reduce((n, s) => n + s.holes, 0), errors,
      peers: all.flatMap((s) => s.peers), delivery: all.map((s) => s.delivery), cpuMs: sumCpu(all),
      pages: { decoded: all.reduce((n, s) => n + s.pages.decoded, 0), spliced: all.reduce((n, s) => n + s.pages.spliced, 0), reused: all.reduce((n, s) => n + s.pages.reused, 0) },
    };
  }

  /** Closes every peer and ends the processes (SIGKILL for one that does not go within 10 s). */
  async close(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.close({ t: 'close' })));
  }
}
