import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { SyncomError } from '../../src';
import type { SyncLink } from '../../src/link/contract';
import { closeAll, dialer, hostAndDialer, hub, Net, until } from './helpers';

const URL = 'memory://hub';

describe('storage.sync.synced(url)', () => {
  it('LIFE-3 BOOT-1: resolves once a fresh node has bootstrapped the host\'s records, and again once its own write is at the host', async () => {
    const { h, d } = await hostAndDialer(URL);
    for (let i = 0; i < 30; i++) await h.s.insert({ i });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL);
    expect((await d.list()).length).toBe(30);
    const id = await d.insert({ mine: true });
    await d.sync.synced(URL);
    expect(await h.s.get(id)).toEqual({ mine: true });
    await closeAll(d, h.s);
  });

  it('rejects NOT_FOUND for a url not registered, SYNC_TIMEOUT when the host is never reached in time (naming the last error), CLOSED when sync stops', async () => {
    const net = new Net();
    const h = await hub();
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await expect(d.sync.synced('memory://nobody')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await d.sync.addNode({ url: URL, token: 't' });
    await expect(d.sync.synced(URL, { timeout: 50 })).rejects.toMatchObject({ code: 'SYNC_TIMEOUT', url: URL });
    // What the dialer last met is named, a wrong token's 401 among them (it had come back only as the timeout).
    net.units.set(URL, h.unit);
    await d.sync.addNode({ url: URL, token: 'wrong' });
    await until(() => d.sync.peers()[0]?.lastError?.code === 'UNAUTHORIZED', [d, h.s]);
    const timedOut = await d.sync.synced(URL, { timeout: 20 }).catch((e: SyncomError) => e);
    expect(timedOut).toMatchObject({ code: 'SYNC_TIMEOUT', message: expect.stringContaining('its last error: UNAUTHORIZED 401'), cause: { code: 'UNAUTHORIZED' } });
    const waiting = d.sync.synced(URL);
    await d.sync.stop();
    await expect(waiting).rejects.toMatchObject({ code: 'CLOSED' });
    await closeAll(d, h.s);
  });

  it('SYNC_TIMEOUT names the last error with the host\'s token as <token>, scrubbed before the message is cut: the host words its refusals, and an app logs this message (SyncomHttpFilter)', async () => {
    const token = 'tok-SECRET-31c0-8e';
    // 190 characters, then the token: a cut at 200 ends inside it.
    const words = `${'unwell '.repeat(26)}at ${token} sorry`;
    const refusing: SyncLink = {
      call: () => Promise.reject(new SyncomError('AUTHORIZE_FAILED', words, { status: 503 })),
      subscribe: () => ({ unsubscribe: () => undefined }), on: () => undefined, off: () => undefined, close: () => undefined,
    };
    const d = await dialer(new Net(), { sync: { connect: () => refusing, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token });
    await until(() => d.sync.peers()[0]?.lastError?.code === 'AUTHORIZE_FAILED', [d]);
    const timedOut = (await d.sync.synced(URL, { timeout: 1 }).catch((e: SyncomError) => e)) as SyncomError;
    expect(timedOut).toMatchObject({ code: 'SYNC_TIMEOUT', message: expect.stringContaining('its last error: AUTHORIZE_FAILED 503: unwell unwell') });
    expect(timedOut.message).toContain('at <token>');
    expect(timedOut.message).not.toContain(token.slice(0, 8));
    await closeAll(d);
  });
});

describe('a hello is read once', () => {
  it('PROTO-4: checkedHello hands back a hello checkHello made as it is, and checks any other value', () => {
    const { checkHello, checkedHello } = jest.requireActual('../../src/sync/protocol/hello') as typeof import('../../src/sync/protocol/hello');
    const raw = { node: 'n', vector: { a: 1 }, epoch: 'e', schema: null, scopes: ['*'] };
    const once = checkHello(raw);
    expect(checkedHello(once)).toBe(once);
    const again = checkedHello(raw);
    expect(again).not.toBe(raw);
    expect(again).toEqual(once);
    expect(() => checkedHello({ ...raw, vector: { a: -1 } })).toThrow(expect.objectContaining({ code: 'BAD_HELLO' }));
  });

  it('keeps Node running until its timeout fires: a script awaiting it with nothing else alive gets SYNC_TIMEOUT, not a silent exit', () => {
    const root = join(__dirname, '../../../..');
    // A host that never answers: the hello waits for good, and no handle of the link keeps the process alive.
    const script = `
      const { open, createMemoryBackend } = require('syncom');
      (async () => {
        const link = { call: () => new Promise(() => {}), subscribe: () => ({ unsubscribe() {} }), on() {}, off() {}, close() {} };
        const s = await open({ path: 'n', backend: createMemoryBackend(), sync: { connect: () => link, antiEntropyInterval: 0 } });
        await s.sync.addNode({ url: 'memory://silent', token: 't' });
        await s.sync.synced('memory://silent', { timeout: 300 }).catch((e) => console.log('settled', e.code));
        await s.close();
      })();`;
    const out = execFileSync(process.execPath, ['-r', join(root, 'scripts/register-src.js'), '-e', script], { cwd: root, encoding: 'utf8' });
    expect(out.trim()).toBe('settled SYNC_TIMEOUT');
  });
});
