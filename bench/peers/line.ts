import { BenchChild } from '../lib/processes';
import { capped } from '../lib/timeout';
import type { PeerInfo, ServerStarted, Written } from './protocol';
import type { PeerSystem } from './systems';

/**
 * One run's product: ms from the writer's first change until the reader held
 * the last, the bytes the server's sockets carried meanwhile, and the CPU the
 * three processes spent meanwhile (µs, every thread of each).
 */
export interface Trip {
  ms: number;
  bytes: number;
  cpuUs: number;
}

/**
 * A system's three processes: its server, the writer, the reader. They are
 * forked once and serve every run of the system (syncom's serve both its
 * signature modes), each run on a fresh server and fresh clients.
 */
export class PeerLine {
  private constructor(private readonly server: BenchChild, private readonly writer: BenchChild, private readonly reader: BenchChild) {}

  /** Forks the three children; if one fails to start, the others are stopped before the error goes on. */
  static async spawn(system: PeerSystem): Promise<PeerLine> {
    const files = [system.server, system.client, system.client];
    const labels = ['server', 'writer', 'reader'].map((l) => `${system.files}-${l}`);
    const started = await Promise.allSettled(files.map((f, i) => BenchChild.spawn(labels[i], f)));
    const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      await Promise.all(children.map((c) => c.stop()));
      throw failed.reason;
    }
    const [server, writer, reader] = children;
    return new PeerLine(server, writer, reader);
  }

  /**
   * One run within `capMs` (a BenchTimeout past it): a fresh server and two
   * fresh clients, one untimed change carried writer -> server -> reader so
   * the line is live, then `count` changes timed. Closed after, also on failure.
   */
  run(system: PeerSystem, count: number, capMs: number, batched = false): Promise<Trip> {
    return capped(this.runUncapped(system, count, batched), capMs, `${system.name}, ${count} ${batched ? 'records in batches' : 'changes'}`);
  }

  /** Stops the three children (SIGKILL after 5 s). */
  async stop(): Promise<void> {
    await Promise.all([this.server.stop(), this.writer.stop(), this.reader.stop()]);
  }

  private async runUncapped(system: PeerSystem, count: number, batched: boolean): Promise<Trip> {
    const options = system.options ?? {};
    try {
      const { url, token } = await this.server.request<ServerStarted>('start', options);
      const writer = await this.writer.request<PeerInfo>('open', { url, token, role: 'writer', ...options });
      await this.reader.request('open', { url, token, role: 'reader', writer, ...options });
      // The reader starts first: a TinyBase client's start waits for another client's answer, which the writer then gives.
      await this.reader.request('start');
      await this.writer.request('start');
      await this.trip(system, 0, 1, batched);
      return await this.trip(system, 1, count, batched);
    } finally {
      await Promise.allSettled([this.writer.request('close'), this.reader.request('close')]);
      await this.server.request('stop').catch(() => undefined);
    }
  }

  /** Records `from` .. `from + count - 1` at the writer, timed until the reader holds all `from + count`. */
  private async trip(system: PeerSystem, from: number, count: number, batched: boolean): Promise<Trip> {
    await this.reader.request('arm', { target: from + count });
    const before = await this.server.request<{ bytes: number }>('bytes');
    const cpuBefore = await this.cpu();
    const written = await this.writer.request<Written>('write', { from, count, batched });
    const { reachedAt } = await this.reader.request<{ reachedAt: number }>('reached');
    const cpuAfter = await this.cpu();
    const after = await this.server.request<{ bytes: number }>('bytes');
    if (reachedAt < written.startedAt) throw new Error(`${system.name}: the reader got there before the writer started`);
    return { ms: Math.max(reachedAt, written.endedAt) - written.startedAt, bytes: after.bytes - before.bytes, cpuUs: cpuAfter - cpuBefore };
  }

  /** The CPU the three processes have spent so far (µs, every thread of each). */
  private async cpu(): Promise<number> {
    const all = await Promise.all([this.server, this.writer, this.reader].map((c) => c.request<{ us: number }>('cpu')));
    return all.reduce((sum, c) => sum + c.us, 0);
  }
}
