import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { open, type Storage } from 'syncom';
import { createSocketIoLink } from 'syncom/socket.io';
import { startHub, type TestHub } from '../helpers/hub';
import { until } from '../helpers/until';

// A dialer that is plain Node: the engine, its socket.io entry and socket.io-client; no Nest module, no syncom-nest import.
describe('a plain Node dialer over syncom/socket.io', () => {
  let hub: TestHub;
  let dir: string;
  let storage: Storage | undefined;

  beforeAll(async () => {
    hub = await startHub({ options: { authorize: (_ctx, hello) => hello.token === 'secret' } });
    dir = await mkdtemp(join(tmpdir(), 'syncom-plain-'));
  });
  afterAll(async () => {
    await storage?.close();
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('LINK-2 PROTO-1 open() with createSocketIoLink dials the gateway: a write reaches the hub, and the hub\'s write comes back', async () => {
    const url = hub.url;
    // The README's ten lines, as a user writes them (url: the hub's, '/syncom' namespace).
    storage = await open({
      path: join(dir, 'data'),
      sync: {
        connect: (node) => createSocketIoLink(io(node.url, { auth: { token: node.token }, transports: ['websocket'] })),
      },
    });
    await storage.sync.addNode({ url, token: 'secret' });
    const id = await storage.insert({ $type: 'Note', title: 'from plain Node' });

    const dialer = storage;
    await until(async () => (await hub.storage.get(id))?.title === 'from plain Node', [dialer, hub.storage], 'the write at the hub');
    const back = await hub.storage.insert({ $type: 'Note', title: 'from the hub' });
    await until(async () => (await dialer.get(back))?.title === 'from the hub', [dialer, hub.storage], "the hub's write at the dialer");
    expect(dialer.sync.peers()[0]).toMatchObject({ url, connected: true });
  });
});
