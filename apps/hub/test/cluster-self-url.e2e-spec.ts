import type { INestApplication, LoggerService } from '@nestjs/common';
import { join } from 'node:path';
import { Storage } from 'syncom';
import { Apps, until } from '../../example-api/test/apps';
import { createHub } from '../src/create-hub';
import type { HubConfig } from '../src/hub.config';
import { freePorts } from '../../../scripts/free-port';

/**
 * A hub whose SYNCOM_PEERS lists its own url ("the same full list on every
 * hub works too"): the dialer learns at hello that the host is this hub and
 * stops before any push, subscription or bootstrap. Before, it sometimes
 * bootstrapped from itself first, appending a merge op for every record,
 * which then replicated into every hub's and client's log.
 */
describe('apps/hub: its own url in SYNCOM_PEERS (e2e)', () => {
  const apps = new Apps();
  const running = new Set<INestApplication>();
  afterAll(async () => {
    for (const app of running) await app.close();
    await apps.stopAll();
  });

  async function hub(port: number, o: Partial<HubConfig>, logger: LoggerService | false) {
    const app = await createHub({ port, host: '127.0.0.1', path: join(apps.dir, 'self'), tokens: ['t'], io: { reconnectionDelay: 50 }, ...o }, logger);
    running.add(app);
    return { app, storage: app.get(Storage) };
  }

  it('a hub holding records, restarted with its own url among its peers, appends nothing (no merge op from itself), disables that url and logs it as one warning, no error', async () => {
    const [port] = await freePorts(1);
    const own = `http://127.0.0.1:${port}/syncom`;
    const first = await hub(port, {}, false);
    for (let i = 0; i < 200; i++) await first.storage.insert({ $type: 'Note', title: `n${i}` });
    const head = first.storage.replica.head;
    running.delete(first.app);
    await first.app.close();

    const warnings: string[] = [];
    const errors: string[] = [];
    const logger: LoggerService = { log: () => undefined, error: (m: unknown) => void errors.push(String(m)), warn: (m: unknown) => void warnings.push(String(m)) };
    const { storage } = await hub(port, { peers: [own] }, logger);
    await until(() => storage.sync.listNodes().find((n) => n.url === own)?.enabled === false, [storage]);
    await storage.sync.flush();
    expect(warnings.filter((w) => w.includes(`${own} is this hub itself`))).toHaveLength(1);
    // The documented full list on every hub is no fault: the warning is the one line, no error beside it.
    expect(errors.filter((e) => e.includes('SELF_DIAL'))).toEqual([]);
    expect(storage.replica.head).toBe(head);
  });
});
