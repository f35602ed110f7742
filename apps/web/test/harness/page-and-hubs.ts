import { TestHubs } from '../../../hub/test/test-hubs';
import { BrowserEnv } from './kit';

/**
 * The browser and the Node hubs of one describe block: the browser started
 * before its tests; after them, `before` (the block's own cleanup, such as
 * closing its Node dialers) runs, then the browser and every hub stop.
 */
export function pageAndHubs(before?: () => Promise<void>): { env: BrowserEnv; hubs: TestHubs } {
  const env = new BrowserEnv();
  const hubs = new TestHubs();
  beforeAll(() => env.start());
  afterAll(async () => {
    await before?.();
    await env.stop();
    await hubs.stopAll();
  });
  return { env, hubs };
}
