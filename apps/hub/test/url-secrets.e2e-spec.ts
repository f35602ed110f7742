import { InMemorySpanExporter, SimpleSpanProcessor, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { CaptureLogger } from '../../../libs/syncom-nest/test/helpers/capture-logger';
import { SyncTelemetry } from '../../../libs/syncom/src/telemetry/sync-telemetry';
import { NOOP_SPAN } from '../../../libs/syncom/src/telemetry/spans';
import { urlLabel } from '../../../libs/syncom/src/telemetry/url-label';
import { until } from '../../example-api/test/apps';
import { freePorts } from '../../../scripts/free-port';
import { HubMetrics } from '../src/hub-metrics';
import { TestHubs } from './test-hubs';

const io = { reconnectionDelay: 50, reconnectionDelayMax: 200 };
const SECRETS = ['Pr0xyPa55', 'K3Y-SECRET', 'ops:', 'apikey', 'frag-secret'];

/** A peer url carrying credentials where an operator may put them: user info, query and fragment. */
const secretUrl = (port: number) => `http://ops:Pr0xyPa55@127.0.0.1:${port}/syncom?apikey=K3Y-SECRET#frag-secret`;
const plainUrl = (port: number) => `http://127.0.0.1:${port}/syncom`;

/**
 * A SYNCOM_PEERS url may carry credentials (a proxy's user and password, an
 * api key in the query). The hub dials it as given, but neither its log nor
 * GET /metrics, which needs no token, shows them: the url is written and
 * labelled as scheme, host and path.
 */
describe('apps/hub: credentials in a peer url stay out of the log and of /metrics (e2e)', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  it('the hub logs a dialed peer (dialing, connected, bootstrapped) without its user info, query or fragment, and /metrics labels it so', async () => {
    const [pb] = await freePorts(1);
    const b = await hubs.start('b', { port: pb, io });
    // Nest's Logger is one per process: the last app created sets it, here a's.
    const logger = new CaptureLogger();
    const a = await hubs.start('a', { io, metrics: true, peers: [secretUrl(pb)] }, logger);
    const [sa, sb] = [a.storage, b.storage];
    const id = await sb.insert({ $type: 'Note', title: 'at b' });
    await until(() => sa.has(id), [sa]);
    await logger.signal.until(() => logger.lines.some(([, , m]) => m.includes('connected (node')) && logger.lines.some(([, , m]) => m.startsWith('bootstrapped')), 'the peer logged');

    const lines = logger.lines.map(([, , m]) => m);
    expect(lines).toContain(`dialing 1 peer hub(s): ${plainUrl(pb)}`);
    expect(lines).toContain(`peer hub ${plainUrl(pb)} connected (node ${JSON.stringify(sb.id)})`);
    expect(lines.some((l) => l.startsWith('bootstrapped') && l.endsWith(`from ${plainUrl(pb)}`))).toBe(true);
    for (const secret of SECRETS) expect(lines.filter((l) => l.includes(secret))).toEqual([]);

    const text = await (await fetch(`${a.url}/metrics`)).text();
    expect(text).toContain(`syncom_peer="${plainUrl(pb)}"`);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('a peer url that is the hub itself is logged without its credentials, as one warning (no SELF_DIAL error line), and GET /health\'s detail shows the peer and its last error so', async () => {
    const [port] = await freePorts(1);
    const logger = new CaptureLogger();
    const self = await hubs.start('self', { port, io, peers: [secretUrl(port)], healthDetail: true }, logger);
    const itself = `peer ${plainUrl(port)} is this hub itself (same node id): not dialing it until the next start`;
    await logger.signal.until(() => logger.lines.some(([, , m]) => m === itself), 'the self dial logged');
    const health = (await (await fetch(`${self.url}/health`)).json()) as { peers: { url: string; lastError: unknown }[] };
    const lines = logger.lines.map(([, , m]) => m);
    expect(lines.filter((l) => l.startsWith('SELF_DIAL'))).toEqual([]);
    for (const secret of SECRETS) expect(lines.filter((l) => l.includes(secret))).toEqual([]);
    expect(health.peers).toEqual([expect.objectContaining({ url: plainUrl(port), lastError: expect.objectContaining({ code: 'SELF_DIAL', url: plainUrl(port) }) })]);
    for (const secret of SECRETS) expect(JSON.stringify(health)).not.toContain(secret);
  });

  it('the engine\'s counters and spans label a dialed url without user info, query or fragment', async () => {
    const metrics = new HubMetrics();
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const t = new SyncTelemetry({ meterProvider: metrics.meterProvider, tracerProvider }, 'node-a');
    const url = secretUrl(8000);
    const outcome = { applied: 1, forged: 1, unsigned: 0, malformed: 0, skew: 0, outOfScope: 0, invalid: 0 };
    await t.push('dialer', url, 1, async () => undefined);
    await t.hello('dialer', url, async () => undefined);
    await t.changesPage(url, 1, async (span) => t.pageApplied(span, { role: 'dialer', peer: url }, outcome));
    await t.bootstrap(url, async () => undefined);
    await t.snapshotPage({ role: 'dialer', peer: url, offset: 0 }, async () => undefined);
    await t.reconciliation('dialer', url, async () => undefined);
    t.limited('dialer', url, 'OPS_PER_SECOND');
    t.pageApplied(NOOP_SPAN, { role: 'dialer', peer: url }, outcome);

    const text = await metrics.text();
    expect(text).toContain(`syncom_peer="${plainUrl(8000)}"`);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(6);
    for (const s of spans) expect(s.attributes['syncom.peer']).toBe(plainUrl(8000));
    await metrics.onApplicationShutdown();
    await tracerProvider.shutdown();
  });

  it('urlLabel: scheme, host and path of a url; a node id or a string that is no url loses only what follows ? or # and user info', () => {
    expect(urlLabel('http://u:p@hub:3000/syncom?token=x#y')).toBe('http://hub:3000/syncom');
    expect(urlLabel('http://u@hub/syncom')).toBe('http://hub/syncom');
    expect(urlLabel('http://127.0.0.1:3000/syncom')).toBe('http://127.0.0.1:3000/syncom');
    expect(urlLabel('jxiL4DPQZmajdlyOUAIaAzUAYN0ebQu_avgLehiNVNU')).toBe('jxiL4DPQZmajdlyOUAIaAzUAYN0ebQu_avgLehiNVNU');
    expect(urlLabel('memory://evil')).toBe('memory://evil');
    expect(urlLabel('not a url?token=x')).toBe('not a url');
    expect(urlLabel('weird://u:p@host:1/x?y')).toBe('weird://host:1/x');
    // No url parses it (a password with a '/' in it): its user info goes all the same.
    expect(urlLabel('ws://user:pa/ss@host:8000/x')).toBe('ws://host:8000/x');
    expect(urlLabel('ws://user:p?a#ss@host:8000/x?t=1')).toBe('ws://host:8000/x');
  });
});
