import type { Page } from 'playwright-core';
import { kitOf } from '../../apps/web/test/harness/kit';
import { BenchChild } from '../lib/processes';
import { removeTemp, tempPath } from '../lib/temp';

const TOKEN = 'bench-token';

/**
 * A hub (apps/hub, its own process) that a Node peer (its own process) filled
 * with `size` records over socket.io, once per invocation; each run is a fresh
 * OPFS store in the page that registers the hub, timed until it holds every
 * record and is in sync (its bootstrap's merge ops signed), then removed.
 */
export class BrowserBootstrap {
  private hub: BenchChild | undefined;
  private peer: BenchChild | undefined;
  private path = '';
  private url = '';
  private runs = 0;

  constructor(readonly size: number) {}

  async setup(): Promise<void> {
    this.path = tempPath('browser-hub');
    [this.hub, this.peer] = await Promise.all([BenchChild.spawn('hub', 'bench/children/hub-process.ts'), BenchChild.spawn('peer', 'bench/children/node-process.ts')]);
    const { port } = await this.hub.request<{ port: number }>('start', { path: this.path, token: TOKEN });
    this.url = `http://127.0.0.1:${port}/syncom`;
    const { id } = await this.peer.request<{ id: string }>('open', { label: 'browser-filler', url: this.url, token: TOKEN });
    await this.hub.request('arm', { stream: id, target: this.size });
    await this.peer.request('insert', { count: this.size, window: 100 });
    await this.hub.request('reached');
  }

  /** One run: the milliseconds from open() to in sync with every record. */
  async run(page: Page): Promise<number> {
    const kit = kitOf(page);
    const name = `bench-boot-${++this.runs}`;
    const started = performance.now();
    await kit.open(name, { hub: { url: this.url, token: TOKEN } });
    const held = await kit.untilCount(name, this.size);
    await kit.synced(name, this.url, 120_000);
    const ms = performance.now() - started;
    if (held !== this.size) throw new Error(`browser/bootstrap: the page holds ${held} records, not ${this.size}`);
    await kit.close(name);
    await kit.removeStore(name);
    return ms;
  }

  async teardown(): Promise<void> {
    await Promise.allSettled([this.peer?.stop(), this.hub?.stop()]);
    if (this.path) removeTemp(this.path);
  }
}
