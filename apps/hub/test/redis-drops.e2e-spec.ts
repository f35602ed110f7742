import { Logger } from '@nestjs/common';
import { CaptureLogger } from '../../../libs/syncom-nest/test/helpers/capture-logger';
import { RedisIoAdapter } from '../src/redis-io.adapter';
import { noteRedisSkip, type RedisServer, skipRedis, startRedis } from './redis-server';

noteRedisSkip('redis-drops.e2e-spec');

/**
 * Publishes dropped while Redis does not answer are said once per stall, and counted in the line that says
 * Redis answers again: each stall's own, or a second stall went unsaid and its count held the first one's.
 */
(skipRedis ? describe.skip : describe)('apps/hub: dropped publishes, stall after stall (e2e)', () => {
  let redis: RedisServer;
  let adapter: RedisIoAdapter | undefined;
  const logger = new CaptureLogger();
  beforeAll(async () => {
    redis = await startRedis();
    Logger.overrideLogger(logger);
  });
  afterAll(async () => {
    redis.pause(false);
    await adapter?.dispose();
    await redis.stop();
    Logger.overrideLogger(false);
  });

  it('a second stall warns of its dropped publishes again, and its "answers again" line counts its own', async () => {
    adapter = new RedisIoAdapter(undefined as never);
    await adapter.connect(redis.url, 200);
    // What the guarded publisher calls on a publish Redis refused (a full command queue).
    const dropOne = () => (adapter as unknown as { publishFailed(e: Error): void }).publishFailed(new Error('queue full'));
    const lines = () => logger.lines.map(([, , m]) => m);
    const count = (pattern: RegExp) => lines().filter((l) => pattern.test(l)).length;
    for (const stall of [1, 2]) {
      redis.pause(true);
      await logger.signal.until(() => count(/is not answering/) === stall, `stall ${stall} logged`);
      dropOne();
      expect(count(/^Redis publish failed \(queue full\)/)).toBe(stall);
      redis.pause(false);
      await logger.signal.until(() => count(/answers again/) === stall, `back ${stall} logged`);
      expect(lines().filter((l) => /answers again/.test(l)).at(-1)).toMatch(/answers again; 1 publish\(es\) were dropped meanwhile$/);
    }
  });
});
