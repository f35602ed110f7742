import { ConfigService } from '@nestjs/config';
import { open, type Storage } from 'syncom';
import { createMemoryBackend } from 'syncom/testing';
import { HealthController } from '../src/health.controller';

/**
 * GET /health needs no token (docs/hub-security.md), so what one costs the
 * hub must not grow with what others made it hold: it counted the live
 * changes feeds by listing every one (sync.hosted(), a copy of each feed's
 * info), about 2.5 ms a GET at 10,000 feeds, 20 ms at the 80,000 a hub's
 * default bounds allow, for a GET of a hundred bytes from anyone.
 */
const FEEDS = 2000;
const GETS = 200;

/** `n` live feeds on `storage`'s unit, eight a connection; returns a way to end those of one connection. */
async function feeds(storage: Storage, n: number): Promise<{ endOne(): void }> {
  const unit = storage.sync.unit({ access: 'public' });
  const contexts: object[] = [];
  for (let c = 0; c < n / 8; c++) {
    const context = {};
    await unit.call('hello', { node: `n${c}`, vector: {}, epoch: 'e', schema: null, scopes: ['*'] }, context);
    for (let k = 0; k < 8; k++) {
      unit.subscribe('changes', {}, context, { lastEventId: storage.replica.eventId(storage.replica.head), onData: () => undefined, onError: () => undefined, onEnd: () => undefined });
    }
    contexts.push(context);
  }
  return { endOne: () => unit.disconnect(contexts.pop() as object) };
}

describe('apps/hub: what GET /health costs', () => {
  it(`counts ${FEEDS.toLocaleString('en')} live feeds without listing them: ${GETS} GETs list no feed, and the count follows the feeds`, async () => {
    const storage = await open({ path: 'h', backend: createMemoryBackend() });
    try {
      const live = await feeds(storage, FEEDS);
      const health = new HealthController(storage, new ConfigService({ hub: { healthDetail: false } }));
      const res = { status: () => res };
      const real = storage.sync.hosted.bind(storage.sync);
      let listed = 0;
      jest.spyOn(storage.sync, 'hosted').mockImplementation(() => {
        const all = real();
        listed += all.length;
        return all;
      });
      for (let i = 0; i < GETS; i++) expect(health.health(res).counts.hosted).toBe(FEEDS);
      live.endOne();
      expect(health.health(res).counts.hosted).toBe(FEEDS - 8);
      expect(listed).toBe(0);
      expect(real()).toHaveLength(FEEDS - 8);
    } finally {
      await storage.close();
    }
  });
});
