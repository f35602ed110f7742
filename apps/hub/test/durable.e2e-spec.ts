import { join } from 'node:path';
import { createHub } from '../src/create-hub';
import { hubConfigFromEnv } from '../src/hub.config';
import { hubSummary } from '../src/hub-summary';
import { Apps, fsyncsAtClose } from '../../example-api/test/apps';

/**
 * SYNCOM_DURABLE=1: the hub opens its storage with `durable`, so a write it
 * acknowledged survives a power cut, not only a crash (docs/guarantees.md,
 * Durability). Without it an operator had no way to ask for that.
 */
describe('apps/hub: SYNCOM_DURABLE (e2e)', () => {
  const apps = new Apps();
  afterAll(() => apps.stopAll());

  it('is a flag of the environment: 1 turns it on, unset leaves it off, a typo stops the hub', () => {
    expect(hubConfigFromEnv({ SYNCOM_DURABLE: '1' }).durable).toBe(true);
    expect(hubConfigFromEnv({}).durable).toBe(false);
    expect(() => hubConfigFromEnv({ SYNCOM_DURABLE: 'yes' })).toThrow(expect.objectContaining({ code: 'HUB_CONFIG' }));
    expect(hubSummary({ ...hubConfigFromEnv({ SYNCOM_DURABLE: '1' }), path: 'd' }, 'http://127.0.0.1:8000/syncom').join('\n')).toMatch(/writes fsynced/);
  });

  it('a durable hub fsyncs what it writes (the segment its close seals); a hub without it fsyncs nothing', async () => {
    const syncs = async (durable: boolean) => {
      const app = await createHub({ port: 0, host: '127.0.0.1', path: join(apps.dir, `d-${durable}`), tokens: ['t'], durable }, false);
      return fsyncsAtClose(app, apps.dir);
    };
    expect(await syncs(false)).toBe(0);
    expect(await syncs(true)).toBeGreaterThan(0);
  });
});
