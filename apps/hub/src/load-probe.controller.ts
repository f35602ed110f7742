import { Controller, Get, type OnApplicationShutdown, Query } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ModuleRef } from '@nestjs/core';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { SyncomGateway } from 'syncom-nest';

/** What GET /load-probe answers: memory in bytes, delays in milliseconds. */
export interface LoadProbeSample {
  rss: number;
  heapUsed: number;
  /** Event-loop delay since the last reset (or the start). */
  delay: { p50: number; p99: number; max: number; mean: number };
  /** Sockets connected to the gateway's namespace now. */
  sockets: number;
  /** CPU time the hub process used since it started, ms (user and system). */
  cpu: number;
  /** Whether a full collection ran just before the memory was read (asked with gc=1, allowed by SYNCOM_LOAD_PROBE_GC, the hub run with --expose-gc). */
  collected: boolean;
}

/** Resolution of the event-loop delay histogram, ms: fine enough for a p50 on a quiet loop. */
const RESOLUTION_MS = 10;

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/**
 * The event-loop delay histogram of the hub process (perf_hooks), running
 * from the start: only mounted under SYNCOM_LOAD_PROBE=1, so a hub in
 * service pays nothing for it.
 */
export class LoadProbe implements OnApplicationShutdown {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });

  constructor() {
    this.histogram.enable();
  }

  /** The delay percentiles since the last reset. */
  delay(): LoadProbeSample['delay'] {
    const h = this.histogram;
    // An empty histogram reports NaN for the mean and a huge min; say zero instead.
    if (h.count === 0) return { p50: 0, p99: 0, max: 0, mean: 0 };
    return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean) };
  }

  /** The next delay figures cover only what follows. */
  reset(): void {
    this.histogram.reset();
  }

  onApplicationShutdown(): void {
    this.histogram.disable();
  }
}

/**
 * GET /load-probe (SYNCOM_LOAD_PROBE=1): the hub's RSS, heap and event-loop
 * delay, sampled by `npm run load`. `?reset=1` starts a new delay interval;
 * `?gc=1` collects garbage first when the hub runs with --expose-gc and
 * SYNCOM_LOAD_PROBE_GC allows it, so the heap read is what is still
 * referenced. The route needs no token, and a full collection stops the hub
 * for tens of ms: without the allowance gc=1 is ignored (`collected: false`).
 */
@Controller('load-probe')
export class LoadProbeController {
  private readonly gcAllowed: boolean;

  constructor(private readonly probe: LoadProbe, private readonly modules: ModuleRef, config: ConfigService) {
    this.gcAllowed = config.get<boolean>('hub.loadProbeGc') === true;
  }

  @Get()
  sample(@Query('reset') reset?: string, @Query('gc') gc?: string): LoadProbeSample {
    // Delay first and the reset after the collection: its pause belongs to no interval.
    const delay = this.probe.delay();
    const collect = gc === '1' && this.gcAllowed ? (globalThis as { gc?: () => void }).gc : undefined;
    collect?.();
    if (reset === '1') this.probe.reset();
    const { rss, heapUsed } = process.memoryUsage();
    // SyncomModule provides the gateway without exporting it: look it up across modules.
    const server = this.modules.get(SyncomGateway, { strict: false }).server;
    const { user, system } = process.cpuUsage();
    return { rss, heapUsed, delay, sockets: server?.sockets.size ?? 0, cpu: (user + system) / 1000, collected: collect !== undefined };
  }
}
