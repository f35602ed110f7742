import { join } from 'node:path';
import { open } from 'syncom';
import { Apps } from './apps';
import { refusedStart } from '../../../scripts/run-main';

/**
 * What an operator reads when the app cannot start after its environment
 * parsed: its own line names the error's code and what to do, as the
 * engine's message says it (docs/nest.md, the apps).
 */
describe('example-api: a start that fails names its code (e2e)', () => {
  const apps = new Apps();
  afterAll(() => apps.stopAll());

  it('main.ts on a path another process holds exits 1 with "could not start: LOCKED: ..." in its own line', async () => {
    const path = join(apps.dir, 'held');
    const holder = await open({ path });
    try {
      const { code, lines } = await refusedStart('apps/example-api/src/main.ts', { PORT: '0', SYNCOM_PATH: path, SYNCOM_HUB: '', NO_COLOR: '1' });
      expect(code).toBe(1);
      expect(lines.filter((l) => l.includes('[ExampleApi]') && l.includes('could not start'))).toEqual([
        expect.stringMatching(/could not start: LOCKED: the storage at .* is locked: process \d+ has it open\. Close that storage first\./),
      ]);
    } finally {
      await holder.close();
    }
  }, 60_000);
});
