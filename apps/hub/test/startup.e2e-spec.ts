import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hubConfigFromEnv } from '../src/hub.config';
import { freePorts } from '../../../scripts/free-port';
import { spawnHub } from './hub-process';
import { refusedStart } from '../../../scripts/run-main';


const refused = (env: Record<string, string> & { SYNCOM_PATH: string }) => refusedStart('apps/hub/src/main.ts', env);

/** The hub's environment is checked before the storage opens, and its start says what it runs with. */
describe('apps/hub: start (hostile, e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-hub-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('each variable that does not parse is named, with what it takes', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'abc' }, /^PORT="abc": expected a whole number from 0 to 65535$/],
      [{ PORT: '70000' }, /^PORT="70000"/],
      [{ SYNCOM_OPS_PER_PUSH: '0' }, /^SYNCOM_OPS_PER_PUSH="0"/],
      [{ SYNCOM_BYTES_PER_PUSH: '4MiB' }, /^SYNCOM_BYTES_PER_PUSH="4MiB"/],
      [{ SYNCOM_OPS_PER_SECOND: '-1' }, /^SYNCOM_OPS_PER_SECOND="-1"/],
      [{ SYNCOM_PAGE_SIZE: '1.5' }, /^SYNCOM_PAGE_SIZE="1.5"/],
      [{ SYNCOM_PAGE_BYTES: 'x' }, /^SYNCOM_PAGE_BYTES="x"/],
      [{ SYNCOM_MAX_IN_FLIGHT_FRAMES: 'ten' }, /^SYNCOM_MAX_IN_FLIGHT_FRAMES="ten"/],
      // Wider than a dialer holds a host to (MAX_IN_FLIGHT_FRAMES): every honest dialer would drop the hub.
      [{ SYNCOM_MAX_IN_FLIGHT_FRAMES: '257' }, /^SYNCOM_MAX_IN_FLIGHT_FRAMES="257": expected a whole number from 1 to 256$/],
      [{ SYNCOM_SOCKETS_PER_TOKEN: 'many' }, /^SYNCOM_SOCKETS_PER_TOKEN="many"/],
      [{ SYNCOM_FEEDS_PER_SOCKET: '0' }, /^SYNCOM_FEEDS_PER_SOCKET="0"/],
      [{ SYNCOM_IN_FLIGHT_BYTES: '1e9' }, /^SYNCOM_IN_FLIGHT_BYTES="1e9"/],
      [{ SYNCOM_LOG_FORMAT: 'xml' }, /^SYNCOM_LOG_FORMAT="xml": expected one of text, json$/],
    ];
    for (const [env, message] of cases) expect(() => hubConfigFromEnv(env)).toThrow(message);
  });

  it('PORT=abc: one line naming PORT, exit 1, and the data directory never created', async () => {
    const path = join(dir, 'never');
    expect(await refused({ PORT: 'abc', SYNCOM_PATH: path })).toEqual({ code: 1, lines: ['hub: PORT="abc": expected a whole number from 0 to 65535'], made: false });
  }, 60_000);

  it('the start names the data path, the peer url, tokens, the signature mode and the limits; an open or unsigned hub is warned about', async () => {
    const [port] = await freePorts(1);
    const secured = await spawnHub({ PORT: String(port), SYNCOM_PATH: join(dir, 'secured'), SYNCOM_TOKENS: `${'t'.repeat(16)},${'d'.repeat(16)}:Doc`, SYNCOM_OPS_PER_SECOND: '300' });
    try {
      await secured.printed(/limits: /);
      const out = secured.output();
      expect(out).toContain(`data ${join(dir, 'secured')}; peers dial http://127.0.0.1:${port}/syncom; tokens required (2, 1 bound to scopes); signatures require; scope field $type`);
      expect(out).toContain('limits: 500 ops and 4 MiB per push, 300 ops/s, 100 purges/s per token; pages of 500 records and 4 MiB, 16 in flight per socket, 64 MiB in all; '
        + '32 sockets per token, 8 feeds per socket; /health brief');
      expect(out).not.toMatch(/WARN/);
    } finally {
      await secured.kill();
    }
    const [open] = await freePorts(1);
    const unsafe = await spawnHub({ PORT: String(open), SYNCOM_PATH: join(dir, 'open'), SYNCOM_TOKENS: undefined, SYNCOM_SIGNATURES: 'verify' });
    try {
      await unsafe.printed(/limits: /);
      const out = unsafe.output();
      expect(out).toMatch(/WARN.*SYNCOM_TOKENS is unset: any peer may sync with this hub/);
      expect(out).toMatch(/WARN.*SYNCOM_SIGNATURES=verify: unsigned ops are taken/);
      expect(out).toContain('tokens NOT required (open); signatures verify');
    } finally {
      await unsafe.kill();
    }
  }, 120_000);

  it('SYNCOM_LOG_FORMAT=json: every line the hub prints is one JSON object with its level, context and message', async () => {
    const [port] = await freePorts(1);
    const hub = await spawnHub({ PORT: String(port), SYNCOM_PATH: join(dir, 'json'), SYNCOM_TOKENS: undefined, SYNCOM_LOG_FORMAT: 'json' });
    try {
      await hub.printed(/limits: /);
      const lines = hub.output().split('\n').filter((l) => l.trim() !== '');
      const parsed = lines.map((l) => JSON.parse(l) as { level: string; context: string; message: string });
      for (const entry of parsed) expect(entry).toEqual(expect.objectContaining({ level: expect.any(String), context: expect.any(String), message: expect.any(String) }));
      expect(parsed).toContainEqual(expect.objectContaining({ level: 'warn', context: 'Hub', message: 'SYNCOM_TOKENS is unset: any peer may sync with this hub' }));
      expect(parsed).toContainEqual(expect.objectContaining({ level: 'log', context: 'Hub', message: `listening on http://127.0.0.1:${port}` }));
    } finally {
      await hub.kill();
    }
  }, 60_000);
});
