import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHub } from '../src/create-hub';
import { hubConfigFromEnv } from '../src/hub.config';
import { hubWarnings } from '../src/hub-summary';

type WithGc = { gc?: () => void };

/**
 * GET /load-probe needs no token, and `?gc=1` runs a full collection (with
 * --expose-gc): tens of ms of stopped event loop per request, at anyone's
 * will. The collection is the load tool's, which runs the hub on loopback:
 * it is honoured only under SYNCOM_LOAD_PROBE_GC, on by default only for a
 * hub bound to a loopback address.
 */
describe('apps/hub: GET /load-probe?gc=1 (e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-probe-gc-'));
  const before = (globalThis as WithGc).gc;
  let collections = 0;
  beforeAll(() => {
    // Stands for --expose-gc: counts what the probe would collect.
    (globalThis as WithGc).gc = () => void collections++;
  });
  afterAll(() => {
    (globalThis as WithGc).gc = before;
    rmSync(dir, { recursive: true, force: true });
  });

  it('SYNCOM_LOAD_PROBE_GC: 1/0 as the other flags; unset, on for a loopback HOST only; a typo refused', () => {
    expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: '1', HOST: '127.0.0.1' }).loadProbeGc).toBe(true);
    expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: '1', HOST: '::1' }).loadProbeGc).toBe(true);
    expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: '1' }).loadProbeGc).toBe(false);
    expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: '1', HOST: '10.0.0.2' }).loadProbeGc).toBe(false);
    expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: '1', SYNCOM_LOAD_PROBE_GC: '1' }).loadProbeGc).toBe(true);
    expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: '1', HOST: '127.0.0.1', SYNCOM_LOAD_PROBE_GC: '0' }).loadProbeGc).toBe(false);
    expect(() => hubConfigFromEnv({ SYNCOM_LOAD_PROBE_GC: 'yes' })).toThrow(/^SYNCOM_LOAD_PROBE_GC="yes": expected 1 or true, 0 or false$/);
    expect(hubConfigFromEnv({})).not.toHaveProperty('loadProbeGc');
  });

  it('without SYNCOM_LOAD_PROBE_GC, ?gc=1 collects nothing and says so (collected: false); with it, it collects', async () => {
    for (const loadProbeGc of [undefined, false, true]) {
      const app = await createHub({ port: 0, host: '127.0.0.1', path: join(dir, String(loadProbeGc)), tokens: ['t'], loadProbe: true, ...(loadProbeGc !== undefined && { loadProbeGc }) }, false);
      try {
        const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
        const seen = collections;
        const sample = (await (await fetch(`${url}/load-probe?gc=1`)).json()) as { collected: boolean };
        expect([sample.collected, collections - seen]).toEqual(loadProbeGc ? [true, 1] : [false, 0]);
      } finally {
        await app.close();
      }
    }
  });

  it('the probe mounted on an address beyond loopback is warned about at start', () => {
    expect(hubWarnings(hubConfigFromEnv({ SYNCOM_TOKENS: 't', SYNCOM_LOAD_PROBE: '1' }))).toContain(
      'SYNCOM_LOAD_PROBE=1 on HOST 0.0.0.0: GET /load-probe answers anyone who reaches the port, without a token');
    expect(hubWarnings(hubConfigFromEnv({ SYNCOM_TOKENS: 't'.repeat(16), SYNCOM_LOAD_PROBE: '1', HOST: '127.0.0.1' }))).toEqual([]);
  });
});
