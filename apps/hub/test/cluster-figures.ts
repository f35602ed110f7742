import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LoadProbeSample } from '../src/load-probe.controller';

/** A process's event-loop delay p99 and RSS, as the cluster test reports them for each hub. */
export interface LoopFigures {
  p99: number;
  max: number;
  rss: number;
}

const MB = 1024 * 1024;
export const describeLoop = (f: LoopFigures) => `loop p99 ${f.p99.toFixed(0)} ms (max ${f.max.toFixed(0)}), RSS ${(f.rss / MB).toFixed(0)} MB`;

/** This process's event-loop delay from start() on: the in-process hubs' loop (they share it with the test). */
export class LoopWatch {
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });

  start(): void {
    this.histogram.reset();
    this.histogram.enable();
  }

  figures(): LoopFigures {
    const h = this.histogram;
    h.disable();
    const empty = h.count === 0;
    return { p99: empty ? 0 : h.percentile(99) / 1e6, max: empty ? 0 : h.max / 1e6, rss: process.memoryUsage().rss };
  }
}

/** A hub child's figures since it started, from GET /load-probe (SYNCOM_LOAD_PROBE=1). */
export async function probeHub(base: string): Promise<LoopFigures> {
  const s = (await (await fetch(`${base}/load-probe`)).json()) as LoadProbeSample;
  return { p99: s.delay.p99, max: s.delay.max, rss: s.rss };
}
