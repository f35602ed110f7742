import { join } from 'node:path';
import { createExampleApi } from '../src/create-example-api';
import { exampleConfigFromEnv } from '../src/example.config';
import { Apps, fsyncsAtClose } from './apps';

/**
 * SYNCOM_DURABLE=1: the app opens its storage with `durable`. A note it
 * answered 201 for may be on no other node yet (the hub is down, or not
 * set), so without fsync a power cut could take it; the app had no way to
 * ask for it.
 */
describe('example-api: SYNCOM_DURABLE (e2e)', () => {
  const apps = new Apps();
  afterAll(() => apps.stopAll());

  it('is a flag: 1 or true on, unset, empty, 0 or false off; anything else stops the app naming it', () => {
    expect(exampleConfigFromEnv({ SYNCOM_DURABLE: '1' }).durable).toBe(true);
    expect(exampleConfigFromEnv({ SYNCOM_DURABLE: 'true' }).durable).toBe(true);
    for (const off of [undefined, '', '0', 'false']) expect(exampleConfigFromEnv({ SYNCOM_DURABLE: off }).durable).toBe(false);
    expect(() => exampleConfigFromEnv({ SYNCOM_DURABLE: 'yes' })).toThrow('SYNCOM_DURABLE="yes": expected 1 or true, 0 or false');
  });

  it('a durable app fsyncs what it writes (the segment its close seals); one without it fsyncs nothing', async () => {
    const syncs = async (durable: boolean) => {
      const app = await createExampleApi({ port: 0, host: '127.0.0.1', path: join(apps.dir, `d-${durable}`), durable }, false);
      return fsyncsAtClose(app, apps.dir);
    };
    expect(await syncs(false)).toBe(0);
    expect(await syncs(true)).toBeGreaterThan(0);
  });
});
