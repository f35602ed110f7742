import { ConfigService } from '@nestjs/config';
import { createMemoryBackend } from 'syncom/testing';
import { open } from 'syncom';
import { HealthController } from '../src/health.controller';

/** GET /health against a storage whose disk refuses writes (the memory backend's fault injection). */
describe('apps/hub: /health while the storage refuses writes', () => {
  it('answers ok: false, status 503 and the failure once the log refuses a write, and ok again once a write succeeds (it said ok while every write failed)', async () => {
    const backend = createMemoryBackend();
    const storage = await open({ path: 'h', backend });
    try {
      const health = new HealthController(storage, new ConfigService({ hub: { healthDetail: false } }));
      let status = 200;
      const res = { status: (code: number) => { status = code; return res; } };
      expect(health.health(res)).toMatchObject({ ok: true });
      expect(status).toBe(200);
      backend.failAt(1, { code: 'ENOSPC' });
      await expect(storage.insert({ a: 1 })).rejects.toMatchObject({ code: 'IO_ERROR' });
      expect(health.health(res)).toMatchObject({ ok: false, failing: { code: 'IO_ERROR', since: expect.any(String) } });
      expect(status).toBe(503);
      status = 200;
      await storage.insert({ b: 1 });
      const after = health.health(res);
      expect(after).toMatchObject({ ok: true });
      expect(after).not.toHaveProperty('failing');
      expect(status).toBe(200);
    } finally {
      await storage.close();
    }
  });

  it('a record-file failure (UNPERSISTED) holds it at 503 past later commits, which say nothing of record files, without moving its since', async () => {
    const backend = createMemoryBackend();
    const storage = await open({ path: 'u', backend });
    try {
      const health = new HealthController(storage, new ConfigService({ hub: { healthDetail: false } }));
      const res = { status: () => res };
      const failed = new Promise<void>((resolve) => storage.on('error', (e) => void (e.code === 'UNPERSISTED' && resolve())));
      backend.failAt(2);
      await storage.insert({ a: 1 });
      // Its records are written with a later batch's, or once the pipeline is asked to be idle (docs/guarantees.md).
      await storage.replica.idle();
      await failed;
      const first = health.health(res);
      expect(first).toMatchObject({ ok: false, failing: { code: 'UNPERSISTED' } });
      await storage.insert({ b: 1 });
      expect(health.health(res)).toMatchObject({ ok: false, failing: { code: 'UNPERSISTED', since: first.failing?.since } });
    } finally {
      await storage.close().catch(() => undefined);
    }
  });

  it('a log failure (IO_ERROR) with no write after it (a hub taken out of rotation by its 503) is ready again after a minute, and 503 again at the next failure', async () => {
    const backend = createMemoryBackend();
    const storage = await open({ path: 'r', backend });
    let now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const health = new HealthController(storage, new ConfigService({ hub: { healthDetail: false } }));
      const res = { status: () => res };
      backend.failAt(1, { code: 'ENOSPC' });
      await expect(storage.insert({ a: 1 })).rejects.toMatchObject({ code: 'IO_ERROR' });
      now += 59_000;
      expect(health.health(res)).toMatchObject({ ok: false, failing: { code: 'IO_ERROR' } });
      now += 2_000;
      expect(health.health(res)).toMatchObject({ ok: true });
      backend.failAt(1, { code: 'ENOSPC' });
      await expect(storage.insert({ b: 1 })).rejects.toMatchObject({ code: 'IO_ERROR' });
      expect(health.health(res)).toMatchObject({ ok: false, failing: { code: 'IO_ERROR' } });
    } finally {
      jest.restoreAllMocks();
      await storage.close();
    }
  });
});
