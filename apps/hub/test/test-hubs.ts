import type { INestApplication } from '@nestjs/common';
import { join } from 'node:path';
import { Storage } from 'syncom';
import { Apps } from '../../example-api/test/apps';
import { createHub } from '../src/create-hub';
import type { HubConfig } from '../src/hub.config';

/** A hub started in this process, with its base url and the url peers dial. */
export interface TestHub {
  app: INestApplication;
  url: string;
  syncomUrl: string;
  storage: Storage;
}

/** Hubs with any HubConfig (Apps.hub takes only tokens), and example-api clients, stopped by stopAll(). */
export class TestHubs {
  readonly apps = new Apps();
  private readonly hubs: INestApplication[] = [];

  /** A hub on a free loopback port, token 't' unless `o` says otherwise; `logger` as createHub takes it (none by default). */
  async start(name: string, o: Partial<HubConfig> = {}, logger: Parameters<typeof createHub>[1] = false): Promise<TestHub> {
    const app = await createHub({ port: 0, host: '127.0.0.1', path: join(this.apps.dir, name), tokens: ['t'], ...o }, logger);
    this.hubs.push(app);
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url, syncomUrl: `${url}/syncom`, storage: app.get(Storage) };
  }

  async stopAll(): Promise<void> {
    for (const app of this.hubs.splice(0)) await app.close().catch(() => undefined);
    await this.apps.stopAll();
  }
}
