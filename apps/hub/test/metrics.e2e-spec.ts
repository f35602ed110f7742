import type { INestApplication } from '@nestjs/common';
import { join } from 'node:path';
import { Storage } from 'syncom';
import { newSigningKey } from 'syncom/testing';
import { Apps, http, until } from '../../example-api/test/apps';
import { createHub } from '../src/create-hub';
import { hubConfigFromEnv } from '../src/hub.config';
import { RawClient } from './raw-client';

/** GET a url's text, with its status and content type. */
async function scrape(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/**
 * The value of the sample of `name` whose labels include `labels`, or
 * undefined when there is none (the exporter adds otel_scope_* labels).
 */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('apps/hub: GET /metrics (e2e)', () => {
  const apps = new Apps();
  const hubs: INestApplication[] = [];
  afterAll(async () => {
    for (const h of hubs) await h.close();
    await apps.stopAll();
  });

  async function hub(name: string, metrics: boolean, opsPerPush?: number) {
    const app = await createHub({ port: 0, host: '127.0.0.1', path: join(apps.dir, name), tokens: ['t'], metrics, ...(opsPerPush && { limits: { opsPerPush } }) }, false);
    hubs.push(app);
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url, storage: app.get(Storage) };
  }

  it('SYNCOM_METRICS=1 turns the metrics on; anything else leaves them off', () => {
    expect(hubConfigFromEnv({ SYNCOM_METRICS: '1' }).metrics).toBe(true);
    expect(hubConfigFromEnv({}).metrics).toBe(false);
    expect(hubConfigFromEnv({ SYNCOM_METRICS: '0' }).metrics).toBe(false);
  });

  it('OPT-16: with metrics on, GET /metrics answers the syncom metrics in the Prometheus text format, counting a peer\'s write', async () => {
    const h = await hub('metrics-on', true);
    const a = await apps.api('a', `${h.url}/syncom`);
    const id = (await http(`${a.url}/notes`, 'POST', { title: 'counted' })).body.id;
    await until(() => h.storage.has(id), [h.storage, a.storage]);
    // A fresh node bootstraps, then opens its feed: a second hub write reaching it came through that feed.
    for (const title of ['first from the hub', 'second from the hub']) {
      const back = await h.storage.insert({ $type: 'Note', title });
      await until(() => a.storage.has(back), [a.storage]);
    }
    const page = await scrape(`${h.url}/metrics`);
    expect(page.status).toBe(200);
    // Express reorders the parameters (charset first); what a scraper reads is the type and the version.
    expect(page.type?.split(';').map((p) => p.trim()).sort()).toEqual(['charset=utf-8', 'text/plain', 'version=0.0.4']);
    if (process.env.SHOW_METRICS) console.log(page.text);
    const node = { syncom_node: h.storage.id };
    for (const name of ['syncom_log_ops', 'syncom_log_floor', 'syncom_peers_connected', 'syncom_sync_lag']) expect(page.text).toContain(`# TYPE ${name} gauge`);
    expect(page.text).toContain('# TYPE syncom_ops_applied_total counter');
    expect(sample(page.text, 'syncom_ops_applied_total', { ...node, syncom_role: 'host' })).toBe(1);
    expect(sample(page.text, 'syncom_log_ops', node)).toBe(h.storage.replica.head);
    expect(sample(page.text, 'syncom_log_floor', node)).toBe(0);
    expect(sample(page.text, 'syncom_peers_connected', { ...node, syncom_role: 'host' })).toBe(1);
    expect(sample(page.text, 'syncom_sync_lag', { ...node, syncom_role: 'host', syncom_peer: a.storage.id })).toBeGreaterThanOrEqual(0);
    await apps.stop(a);
  });

  it('OPT-16: a token holder greeting under 300 fresh node ids adds at most 256 peers to /metrics; the rest are counted as "(other)"', async () => {
    const h = await hub('metrics-chosen-ids', true, 1);
    const client = await RawClient.connect(`${h.url}/syncom`, 't');
    const ids = 300;
    for (let i = 0; i < ids; i++) {
      const node = newSigningKey().node;
      expect(await client.call('hello', { node, vector: {}, epoch: 'raw', schema: null, scopes: ['*'], token: 't' })).toMatchObject({ ok: true });
      // Over SYNCOM_OPS_PER_PUSH: counted in syncom_ops_limited_total under the peer this hello claimed.
      expect(await client.call('push', { ops: [0, 1] })).toMatchObject({ ok: false, error: { code: 'OPS_PER_PUSH' } });
    }
    client.close();
    const lines = (await scrape(`${h.url}/metrics`)).text.split('\n').filter((l) => l.startsWith('syncom_ops_limited_total{'));
    const peers = lines.map((l) => /syncom_peer="([^"]*)"/.exec(l)?.[1]);
    expect(new Set(peers).size).toBe(257);
    expect(sample(lines.join('\n'), 'syncom_ops_limited_total', { syncom_peer: '(other)' })).toBe(ids - 256);
    expect(lines.some((l) => l.includes('otel_metric_overflow'))).toBe(false);
  });

  it('with metrics off (the default), there is no /metrics: 404', async () => {
    const h = await hub('metrics-off', false);
    expect((await scrape(`${h.url}/metrics`)).status).toBe(404);
    expect((await scrape(`${h.url}/health`)).status).toBe(200);
  });
});
