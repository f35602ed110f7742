import { open, type Storage } from 'syncom';
import { socketIoConnect } from '../../src';

const stores: Storage[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** A memory store dialing with the module's default connect; resolves to the first sync error and the node's lastError then. */
async function firstError(url: string): Promise<{ code?: string; message: string; lastError?: string }> {
  const s = await open({ path: `/default-connect-${stores.length}`, backend: 'memory', sync: { connect: socketIoConnect({ reconnection: false }) } });
  stores.push(s);
  const failed = new Promise<{ code?: string; message: string }>((resolve) => s.sync.on('error', (e) => resolve(e as { code?: string; message: string })));
  await s.sync.addNode({ url });
  const e = await failed;
  return { ...e, code: e.code, message: e.message, lastError: s.sync.peers()[0]?.lastError?.code };
}

describe('the default connect: a url socket.io-client would dial as nothing', () => {
  it.each([
    ['one that does not parse', 'http://[bad'],
    ['one without a scheme (socket.io-client would dial https)', 'localhost:3000'],
    ['another scheme', 'ftp://hub.example'],
  ])('%s is the node\'s lastError, INVALID_ARGUMENT, and its credentials stay out of the message', async (_t, url) => {
    const e = await firstError(url.replace('//', '//user:secret@'));
    expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', lastError: 'INVALID_ARGUMENT', message: expect.stringContaining('http(s) or ws(s) url') });
    expect(e.message).not.toContain('secret');
  });
});
