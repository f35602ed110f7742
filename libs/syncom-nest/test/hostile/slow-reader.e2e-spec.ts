import type { Socket as ClientSocket } from 'socket.io-client';
import type { SyncUnit } from 'syncom';
import { unreadBytes } from '../../src/gateway';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import { Signal } from '../helpers/until';

type Answer = { ok: boolean; value?: unknown; error?: { code: string; status: number } };

const hello = (node: string) => ({ node, vector: {}, epoch: 'e', schema: null, scopes: ['*'] });

/**
 * A socket that asks and never reads (docs/security.md, A token holder): an
 * answer is queued on its socket whether or not the peer reads it, so 300
 * snapshot requests from a socket that had stopped reading queued 197 MB of
 * pages on the host. Counted in what the host's engine.io connection holds
 * unsent, never by the clock.
 */
describe('hostile: a socket that asks for pages and never reads them', () => {
  const { sockets, startHub } = gatewayFixture();

  async function greeted(url: string, node: string): Promise<ClientSocket> {
    const socket = await rawSocket(url);
    sockets.push(socket);
    expect(await socket.timeout(5000).emitWithAck('hello', hello(node))).toMatchObject({ ok: true });
    return socket;
  }

  it('PROTO-7 HOST-6: 300 snapshot pages asked from a socket that stopped reading hold at most four pages and a bound on the host; its answers past that are 429 READ_BACKLOG, and another socket still bootstraps', async () => {
    const pageBytes = 256 * 1024;
    const h = await startHub({ options: { pageSize: 500, pageBytes, maxConnectionInFlightBytes: 1 << 20, maxInFlightBytes: 4 << 20 } });
    for (let i = 0; i < 2000; i += 500) await Promise.all(Array.from({ length: 500 }, (_, k) => h.storage.insert({ i: i + k, pad: 'x'.repeat(1000) })));
    const limited: { node: string; reason: string }[] = [];
    h.storage.sync.on('limited', (e) => limited.push(e));
    const slow = await greeted(h.url, 'slow');
    const first = (await slow.timeout(5000).emitWithAck('snapshot', {})) as { value: { token: string } };
    // The client stops reading its socket: what the host sends waits in the host's buffers.
    (slow.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws._socket.pause();
    const answers: Answer[] = [];
    const all = new Signal();
    for (let i = 0; i < 300; i++) slow.emit('snapshot', { token: first.value.token, offset: 0 }, (a: Answer) => { answers.push(a); all.notify(); });
    const unit = h.gateway.unit as SyncUnit;
    const honest = await greeted(h.url, 'honest');
    let page = (await honest.timeout(10_000).emitWithAck('snapshot', {})) as { ok: boolean; value: { token: string; next: number | null; count: number } };
    let got = page.value.count;
    while (page.value.next !== null) {
      page = (await honest.timeout(10_000).emitWithAck('snapshot', { token: page.value.token, offset: page.value.next })) as typeof page;
      expect(page.ok).toBe(true);
      got += page.value.count;
    }
    expect(got).toBe(2000);
    // By now the slow socket's 300 requests were all answered into the host's buffers (the honest pages came after them).
    const held = Math.max(...[...h.namespace().sockets.values()].map((s) => unreadBytes(s)));
    // At most four pages (the calls in progress when the bound was met) and the small refusals.
    expect(held).toBeLessThanOrEqual(1.3 * 4 * pageBytes + 300 * 300);
    expect(unit.usage().pagings).toBeLessThanOrEqual(2);
    (slow.io.engine.transport as unknown as { ws: { _socket: { resume(): void } } }).ws._socket.resume();
    await all.until(() => answers.length === 300, 'every answer to arrive once the socket reads again');
    const refused = answers.filter((a) => !a.ok);
    expect(refused.length).toBeGreaterThanOrEqual(290);
    expect(refused.every((a) => a.error?.code === 'READ_BACKLOG' && a.error.status === 429)).toBe(true);
    // Counted as the limits guard's refusals are, by reason, for the node that greeted.
    expect(limited.filter((l) => l.reason === 'READ_BACKLOG' && l.node === 'slow')).toHaveLength(refused.length);
    // Read again, the socket is served again.
    expect(await slow.timeout(10_000).emitWithAck('snapshot', { token: first.value.token, offset: 0 })).toMatchObject({ ok: true });
  }, 60_000);
});
