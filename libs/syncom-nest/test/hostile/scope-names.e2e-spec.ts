import type { Socket as ClientSocket } from 'socket.io-client';
import { formatEventId, type SyncUnit } from 'syncom';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';

type Answer = { ok: boolean; value?: unknown; error?: { code: string; status: number } };

const HELLO = { node: 'scope-names', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
const badRequest = { ok: false, error: { code: 'BAD_REQUEST', status: 400 } };

/**
 * The gateway holds the scope names of changes, snapshot, reconcile and
 * records envelopes to hello's rule (1-128 characters without '<', at most
 * 1,024 names) before the engine sees them. Before, a changes envelope took
 * 256 names of any length: a socket granted '*' subscribing again and again
 * with a 256 KiB name made the unit keep each name in a shared read's key.
 */
describe("hostile: scope names at the gateway (SCOPE-20, PROTO-6, PROTO-7)", () => {
  const f = gatewayFixture();

  const ask = async (socket: ClientSocket, event: string, body: unknown) => (await socket.timeout(10_000).emitWithAck(event, body)) as Answer;

  it("SCOPE-20 PROTO-4 PROTO-6 PROTO-7: names over 128 characters, holding '<' or over 1,024 are refused 400 BAD_REQUEST in every envelope; the longest and the most are taken", async () => {
    const h = await f.startHub();
    await h.storage.insert({ title: 'one' });
    const socket = await rawSocket(h.url);
    f.sockets.push(socket);
    const greeted = await ask(socket, 'hello', HELLO);
    expect(greeted).toMatchObject({ ok: true });
    const from = formatEventId((greeted.value as { epoch: string }).epoch, 0);
    const reads = (h.gateway.unit as unknown as { reads: { size: number } }).reads;
    const many = Array.from({ length: 1025 }, (_, i) => `s${i}`);
    const refused: unknown[][] = [['x'.repeat(129)], ['a<x'], [''], many, ['x'.padEnd(256 * 1024, 'x')]];
    for (const [i, scopes] of refused.entries()) {
      expect(await ask(socket, 'changes', { sub: `bad.${i}`, args: { scopes }, lastEventId: from })).toMatchObject(badRequest);
      expect(await ask(socket, 'snapshot', { scopes })).toMatchObject(badRequest);
    }
    // No feed opened, so no read was kept for any of them.
    expect(reads.size).toBe(0);
    for (const scope of ['x'.repeat(129), 'a<x', '']) {
      expect(await ask(socket, 'reconcile', { scope, msg: {}, start: true })).toMatchObject(badRequest);
      expect(await ask(socket, 'records', { scope, ids: [] })).toMatchObject(badRequest);
    }
    expect(await ask(socket, 'hello', { ...HELLO, scopes: ['a<x'] })).toMatchObject(badRequest);
    // A refused re-hello ended the session: greet again.
    expect(await ask(socket, 'hello', HELLO)).toMatchObject({ ok: true });
    const most = ['x'.repeat(128), 'team@example.com', ...many.slice(3)];
    expect(most).toHaveLength(1024);
    expect(await ask(socket, 'changes', { sub: 'good', args: { scopes: most }, lastEventId: from })).toEqual({ ok: true, value: null });
    expect(await ask(socket, 'snapshot', { scopes: most })).toMatchObject({ ok: true, value: { count: 1 } });
    expect((h.gateway.unit as SyncUnit).hosted()).toHaveLength(1);
  });
});
