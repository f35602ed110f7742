import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'syncom';
import { refusedStart } from '../../../scripts/run-main';
import { createHub } from '../src/create-hub';
import { TestHubs } from './test-hubs';

/**
 * A hub that cannot start tells its caller: createHub rejects with the
 * engine's coded error. Nest's default (abortOnError) had exited the process
 * from inside createHub, so an app embedding a hub could not handle it, and
 * a test runner's worker died with it.
 */
describe('apps/hub: a start that fails rejects', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  it('a second hub on a path another hub holds rejects with LOCKED; the process goes on and the first hub still answers', async () => {
    const first = await hubs.start('held');
    await expect(createHub({ port: 0, host: '127.0.0.1', path: join(hubs.apps.dir, 'held'), tokens: ['t'] }, false)).rejects.toMatchObject({ code: 'LOCKED' });
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
  });

  it('a gateway option the gateway would refuse (an origin that is none, a bound out of range) fails the start before the storage opens: the same path starts right after', async () => {
    const at = join(hubs.apps.dir, 'bad-options');
    const bad = { port: 0, host: '127.0.0.1', path: at, tokens: ['t'] };
    await expect(createHub({ ...bad, allowedOrigins: ['not an origin'] }, false)).rejects.toThrow(/allowedOrigins/);
    await expect(createHub({ ...bad, limits: { maxInFlightFrames: 10_000 } }, false)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const hub = await hubs.start('bad-options');
    expect((await fetch(`${hub.url}/health`)).status).toBe(200);
  });

  it('main.ts on a store it cannot open (a lost private key) exits 1 with a line that names the code and what to do, not only a stack', async () => {
    const path = join(hubs.apps.dir, 'keyless');
    await (await open({ path })).close();
    rmSync(join(path, 'keys', 'sign-private.pem'));
    const { code, lines } = await refusedStart('apps/hub/src/main.ts', { PORT: '0', SYNCOM_PATH: path, SYNCOM_TOKENS: 't', NO_COLOR: '1' });
    expect(code).toBe(1);
    expect(lines.filter((l) => l.includes('[Hub]') && l.includes('could not start'))).toEqual([
      expect.stringMatching(/could not start: STORE_DAMAGED: keys\/sign-private\.pem is missing: restore keys\/ from a backup/),
    ]);
  }, 60_000);
});
