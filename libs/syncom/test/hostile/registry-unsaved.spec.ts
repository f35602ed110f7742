import { internals } from '../../src/testing/internals';
import type { MemoryBackend } from '../../src/backend';
import { nodeFile } from '../../src/sync/dial/registry';
import { closeAll, hostAndDialer, until } from '../sync/helpers';

/**
 * No swallowed failure in the dialer or the registry (REG-5, LIFE-19): a
 * registry file that cannot be written — a full disk — is a sync 'error'
 * with code REGISTRY_UNSAVED, the url and the cause, never a silent loss of
 * a cursor; addNode() rejects with it.
 */

const URL = 'memory://h';

async function pair() {
  const t = await hostAndDialer(URL);
  return { ...t, backend: internals(t.d).backend as MemoryBackend };
}

describe('a registry file that cannot be saved', () => {
  it('REG-5, LIFE-19: a dialer whose save fails (ENOSPC) reports REGISTRY_UNSAVED with url and cause; the next save writes the newer state', async () => {
    const { net, h, d, errors, backend } = await pair();
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    const link = net.links[0];
    link.cut();
    backend.failAt(1, { code: 'ENOSPC', persistent: true, ops: ['write'] });
    link.restore();
    await until(() => errors.length > 0, [d]);
    expect(errors[0]).toMatchObject({ code: 'REGISTRY_UNSAVED', url: URL, cause: { code: 'ENOSPC' } });
    expect(d.sync.peers()[0].lastError).toMatchObject({ code: 'REGISTRY_UNSAVED' });
    backend.clearFaults();
    // The cursor moves once the page landed, after its records read: wait for it to pass the one before.
    const before = d.sync.listNodes()[0].cursor;
    const x = await h.s.insert({ after: 'the disk has room again' });
    await until(async () => d.has(x), [d]);
    await until(() => d.sync.listNodes()[0].cursor !== before, [d]);
    await d.sync.flush();
    const saved = JSON.parse(backend.files().get(nodeFile(URL)) ?? '{}') as { cursor?: string };
    expect(saved.cursor).toBe(d.sync.listNodes()[0].cursor);
    await closeAll(d, h.s);
  });

  it('LOG-17, LIFE-19: the save after an answered push (acked) that fails is reported, not swallowed', async () => {
    const { h, d, errors, backend } = await pair();
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    // Only the registry's files fail: the log and the record files take the write.
    const write = backend.write.bind(backend);
    backend.write = (path, text, o) => (path.startsWith('remote/') ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })) : write(path, text, o));
    const x = await d.insert({ pushed: true });
    await until(async () => (await h.s.has(x)) && errors.length > 0, [d, h.s]);
    expect(errors.map((e) => [e.code, e.url])).toEqual([['REGISTRY_UNSAVED', URL]]);
    backend.write = write;
    await closeAll(d, h.s);
  });

  it('REG-5: addNode() rejects with REGISTRY_UNSAVED when the node\'s file cannot be written', async () => {
    const { h, d, backend } = await pair();
    backend.failAt(1, { code: 'ENOSPC', persistent: true, ops: ['write'] });
    await expect(d.sync.addNode({ url: URL, token: 't' })).rejects.toMatchObject({ code: 'REGISTRY_UNSAVED', url: URL });
    backend.clearFaults();
    await closeAll(d, h.s);
  });

  it('REG-5: a node whose addNode() failed to save (a full quota) stands registered in memory, as the error says, and is dialed: it syncs once there is room, without another addNode()', async () => {
    const { h, d, backend } = await pair();
    backend.failAt(1, { code: 'ENOSPC', persistent: true, ops: ['write'] });
    await expect(d.sync.addNode({ url: URL, token: 't' })).rejects.toMatchObject({ code: 'REGISTRY_UNSAVED', url: URL });
    // What an app reads to tell whether to register again (apps/web's dialHub): the node, with its token.
    expect(d.sync.listNodes()).toEqual([expect.objectContaining({ url: URL, token: 't' })]);
    backend.clearFaults();
    const x = await h.s.insert({ after: 'the quota has room again' });
    await until(async () => d.has(x), [d, h.s]);
    await closeAll(d, h.s);
  });

  it('REG-3: enableNode() whose save fails still does what listNodes() then says: a node disabled is hung up, one enabled is dialed', async () => {
    const { h, d, backend } = await pair();
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.connected === true, [d]);
    backend.failAt(1, { code: 'ENOSPC', persistent: true, ops: ['write'] });
    await expect(d.sync.enableNode(URL, false)).rejects.toMatchObject({ code: 'REGISTRY_UNSAVED' });
    expect(d.sync.listNodes()[0].enabled).toBe(false);
    expect(d.sync.peers().filter((p) => p.connected)).toEqual([]);
    await expect(d.sync.enableNode(URL, true)).rejects.toMatchObject({ code: 'REGISTRY_UNSAVED' });
    backend.clearFaults();
    const x = await h.s.insert({ after: 'enabled again' });
    await until(async () => d.has(x), [d, h.s]);
    await closeAll(d, h.s);
  });
});
