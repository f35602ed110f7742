import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LoadProbeSample } from '../src/load-probe.controller';

/** A process's event-loop delay p99 and RSS, as the cluster test reports them for each hub. */
export interface LoopFigures {
  p99: number;
  max: number;
  rss: number;
  /** CPU time over wall time since the start: 1 is one core busy all along. */
  cores: number;
}

const MB = 1024 * 1024;
export const describeLoop = (f: LoopFigures) => `loop p99 ${f.p99.toFixed(0)} ms (max ${f.max.toFixed(0)}), RSS ${(f.rss / MB).toFixed(0)} MB, ${f.cores.toFixed(2)} cores`;
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** This process's event-loop delay from start() on: the in-process hubs' loop (they share it with the test). */
export class LoopWatch {
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  private at = { wall: 0, cpu: 0 };

  start(): void {
    this.at = { wall: performance.now(), cpu: cpuMs() };
    this.histogram.reset();
    this.histogram.enable();
  }

  figures(): LoopFigures {
    const h = this.histogram;
    h.disable();
    const empty = h.count === 0;
    const cores = (cpuMs() - this.at.cpu) / (performance.now() - this.at.wall);
    return { p99: empty ? 0 : h.percentile(99) / 1e6, max: empty ? 0 : h.max / 1e6, rss: process.memoryUsage().rss, cores };
  }
}

/** A hub child's figures since it started (at `startedAt`, performance.now()), from GET /load-probe (SYNCOM_LOAD_PROBE=1). */
export async function probeHub(base: string, startedAt: number): Promise<LoopFigures> {
  const s = (await (await fetch(`${base}/load-probe`)).json()) as LoadProbeSample;
  return { p99: s.delay.p99, max: s.delay.max, rss: s.rss, cores: s.cpu / (performance.now() - startedAt) };
}
