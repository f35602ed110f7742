import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LoadProbeSample } from '../../apps/hub/src/load-probe.controller';
import type { HubChild } from './hub-child';

/** One sample: the hub's figures, and the load tool's own beside them (it shares the two cores). */
export interface Sample {
  /** Seconds since the run started. */
  t: number;
  phase: string;
  hub: LoadProbeSample;
  /** The load tool's RSS, bytes. */
  toolRss: number;
}

/** A phase's event-loop delay at the hub, ms, over the whole phase. */
export interface PhaseDelay {
  phase: string;
  seconds: number;
  delay: LoadProbeSample['delay'];
  /** The load tool's own event-loop delay p99 in the phase, ms (a busy tool delays what the hub sees). */
  toolP99: number;
  /** The hub's CPU time in the phase over its length: 1 is one core busy all along. */
  hubCores: number;
}

/**
 * Samples the hub's GET /load-probe every `intervalMs` while the run goes
 * through its phases. The hub's delay histogram restarts at each phase, so
 * a sample's delay covers the phase so far and the last one the whole phase.
 */
export class Sampler {
  readonly samples: Sample[] = [];
  readonly phases: PhaseDelay[] = [];
  private phase = 'start';
  private phaseAt = performance.now();
  private cpuAt = 0;
  private readonly t0 = performance.now();
  private timer?: NodeJS.Timeout;
  private inflight: Promise<void> = Promise.resolve();
  private busy = false;
  private readonly tool = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly hub: HubChild, private readonly intervalMs: number) {}

  async start(phase: string): Promise<void> {
    this.tool.enable();
    await this.enter(phase);
    this.timer = setInterval(() => this.take(), this.intervalMs);
  }

  /**
   * Ends the current phase (its delay figures kept) and starts `phase`. The
   * hub collects its garbage first unless `collect` is false: where deliveries
   * are still in flight (the write window's end), a full collection would
   * stall the hub just as the window's last writes are timed.
   */
  async enter(phase: string, collect = true): Promise<void> {
    await this.inflight;
    // No periodic sample while the boundary's is taken: it would land after it, in the old phase, with the delay reset.
    this.busy = true;
    const hub = await this.boundary(collect).finally(() => { this.busy = false; });
    const seconds = (performance.now() - this.phaseAt) / 1000;
    const hubCores = (hub.cpu - this.cpuAt) / 1000 / seconds;
    if (this.phase !== 'start') this.phases.push({ phase: this.phase, seconds, delay: hub.delay, toolP99: this.tool.percentile(99) / 1e6, hubCores });
    this.tool.reset();
    this.cpuAt = hub.cpu;
    this.record(this.phase, hub);
    [this.phase, this.phaseAt] = [phase, performance.now()];
  }

  /**
   * The probe that ends a phase, tried up to three times a second apart: a hub
   * thousands of sockets swamp may cut one answer short, which must not end the run.
   */
  private async boundary(collect: boolean): Promise<LoadProbeSample> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.hub.probe(true, collect);
      } catch (e) {
        if (attempt >= 3) throw e;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** Ends the last phase and stops sampling. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.enter('end');
    this.tool.disable();
  }

  private take(): void {
    // One probe at a time: a hub slow to answer is itself a figure, not a reason to pile requests up.
    if (this.busy) return;
    this.busy = true;
    this.inflight = (async () => {
      try {
        this.record(this.phase, await this.hub.probe(false));
      } catch {
        // A probe that failed (the hub is going away) leaves a hole in the table, nothing more.
      } finally {
        this.busy = false;
      }
    })();
  }

  private record(phase: string, hub: LoadProbeSample): void {
    this.samples.push({ t: (performance.now() - this.t0) / 1000, phase, hub, toolRss: process.memoryUsage().rss });
  }
}
