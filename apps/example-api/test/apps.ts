import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage } from 'syncom';
import { createHub } from '../../hub/src/create-hub';
import { createExampleApi } from '../src/create-example-api';

export { until } from '../../../libs/syncom/test/sync/helpers';

/** A started app with its base url and storage. */
export interface Running {
  app: INestApplication;
  url: string;
  storage: Storage;
}

/** Temporary directories and apps of one test file, closed by stopAll(). */
export class Apps {
  readonly dir = mkdtempSync(join(tmpdir(), 'syncom-e2e-'));
  private readonly running = new Set<Running>();

  async hub(name: string, o: { port?: number; tokens?: string[] } = {}): Promise<Running & { syncomUrl: string }> {
    const app = await createHub({ port: o.port ?? 0, host: '127.0.0.1', path: join(this.dir, name), tokens: o.tokens ?? ['t'] }, false);
    const r = this.track(app, await app.getUrl());
    return { ...r, syncomUrl: `${r.url}/syncom` };
  }

  async api(name: string, hub: string, token = 't'): Promise<Running> {
    const io = { reconnectionDelay: 50, reconnectionDelayMax: 200 };
    const app = await createExampleApi({ port: 0, host: '127.0.0.1', path: join(this.dir, name), hub, token, io }, false);
    return this.track(app, await app.getUrl());
  }

  /** An example-api of its own, dialing no hub: its answers are the REST layer's. */
  async local(name: string): Promise<Running> {
    const app = await createExampleApi({ port: 0, host: '127.0.0.1', path: join(this.dir, name) }, false);
    return this.track(app, await app.getUrl());
  }

  async stop(r: Running): Promise<void> {
    this.running.delete(r);
    await r.app.close();
  }

  async stopAll(): Promise<void> {
    for (const r of [...this.running]) await this.stop(r).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private track(app: INestApplication, url: string): Running {
    const r = { app, url: url.replace('[::1]', '127.0.0.1'), storage: app.get(Storage) };
    this.running.add(r);
    return r;
  }
}

/** A JSON request; answers { status, body }. */
export async function http(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * How many fsyncs closing `app` makes once a record was inserted: the fs
 * backend's durable writes go through FileHandle.prototype.sync (the segment
 * the close seals, at least).
 */
export async function fsyncsAtClose(app: INestApplication, dir: string): Promise<number> {
  await app.get(Storage).insert({ $type: 'Note', title: 'kept' });
  const handle = await open(dir, 'r');
  await handle.close();
  const sync = jest.spyOn(Object.getPrototypeOf(handle) as { sync: () => Promise<void> }, 'sync');
  try {
    await app.close();
    return sync.mock.calls.length;
  } finally {
    sync.mockRestore();
  }
}
