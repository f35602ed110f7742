import type { LoggerService } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, Storage } from 'syncom';
import { socketIoConnect } from '../../src';
import { startApp } from '../helpers/start-app';

const dir = mkdtempSync(join(tmpdir(), 'syncom-nest-before-apply-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every line a Nest logger is handed, its arguments joined (an error's stack included). */
class AllLines implements LoggerService {
  readonly lines: string[] = [];
  log(...a: unknown[]) { this.lines.push(a.join(' ')); }
  warn(...a: unknown[]) { this.lines.push(a.join(' ')); }
  error(...a: unknown[]) { this.lines.push(a.join(' ')); }
}

describe("a hosting app's beforeApply that throws", () => {
  it("GUAR-16: refuses the peer's page 503 PAGE_FAILED without handing the peer its error's text; the host's log has it", async () => {
    const logger = new AllLines();
    const secret = 'connect ECONNREFUSED 10.1.2.3:5432 (user hub-admin)';
    const app = await startApp({ path: join(dir, 'hub'), backend: 'memory', gateway: { access: 'public' }, hooks: { beforeApply: () => { throw new Error(secret); } } }, logger);
    await app.listen(0, '127.0.0.1');
    const dialer = await open({ path: join(dir, 'dialer'), backend: 'memory', sync: { connect: socketIoConnect({ reconnection: false }) } });
    const refused = new Promise<{ code?: string; status?: number; message: string }>((resolve) => dialer.sync.on('error', (e) => resolve(e as never)));
    await dialer.sync.addNode({ url: `${await app.getUrl()}/syncom` });
    await dialer.insert({ a: 1 });
    const error = await refused;
    expect(error).toMatchObject({ code: 'PAGE_FAILED', status: 503 });
    expect(error.message).not.toContain('ECONNREFUSED');
    expect(JSON.stringify(dialer.sync.peers())).not.toContain('ECONNREFUSED');
    expect(logger.lines.some((l) => l.includes(secret))).toBe(true);
    expect((await app.get(Storage).list({})).length).toBe(0);
    await dialer.close();
    await app.close();
  });
});
