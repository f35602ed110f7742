import { internals } from '../../src/testing/internals';
import type { MemoryBackend } from '../../src/backend';
import { createMemoryBackend, open, type SyncomError } from '../../src';
import { nodeFile } from '../../src/sync/dial/registry';
import { closeAll, hostAndDialer, hub, Net, until } from './helpers';

/**
 * A dialed url may carry credentials (a proxy's user and password, an api key
 * in the query). The error keeps the url whole in `url`, for the app to match
 * its registry; the message, which apps and the Nest logger write to their
 * logs, names it without user info, query or fragment (urlLabel).
 */

const SECRET_URL = 'memory://ops:pw-SECRET@h?apikey=KEY-SECRET';
const SECRETS = ['pw-SECRET', 'KEY-SECRET', 'ops:'];

const leaks = (e: SyncomError | undefined) => SECRETS.filter((x) => String(e?.message).includes(x));

describe('an error about a dialed url names it without its credentials', () => {
  it('SELF_DIAL: the message names memory://h, the url stays whole in .url', async () => {
    const net = new Net();
    const h = await hub({}, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    net.units.set(SECRET_URL, h.unit);
    const errors: SyncomError[] = [];
    h.s.sync.on('error', (e) => errors.push(e));
    await h.s.sync.addNode({ url: SECRET_URL, token: 't' });
    await until(() => errors.length > 0, [h.s]);
    expect(errors[0]).toMatchObject({ code: 'SELF_DIAL', url: SECRET_URL });
    expect(errors[0].message).toContain('memory://h is this node');
    expect(leaks(errors[0])).toEqual([]);
    await closeAll(h.s);
  });

  it('NOT_FOUND and SYNC_TIMEOUT of synced(), and REGISTRY_UNSAVED, whose OS message names the file (the url, encoded): none carries the credentials', async () => {
    const { net, h, d, errors } = await hostAndDialer(SECRET_URL);
    const missing = await d.sync.synced(`${SECRET_URL}x`).catch((e: SyncomError) => e);
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    expect(leaks(missing as SyncomError)).toEqual([]);

    await d.sync.addNode({ url: SECRET_URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    net.links[0].cut();
    const late = await d.sync.synced(SECRET_URL, { timeout: 1 }).catch((e: SyncomError) => e);
    expect(late).toMatchObject({ code: 'SYNC_TIMEOUT' });
    expect(leaks(late as SyncomError)).toEqual([]);

    const backend = internals(d).backend as MemoryBackend;
    backend.failAt(1, { code: 'ENOSPC', persistent: true, ops: ['write'] });
    net.links[0].restore();
    await until(() => errors.some((e) => e.code === 'REGISTRY_UNSAVED'), [d]);
    const unsaved = errors.find((e) => e.code === 'REGISTRY_UNSAVED');
    expect(unsaved).toMatchObject({ url: SECRET_URL, cause: { code: 'ENOSPC' } });
    expect(unsaved?.message).toContain('registry of memory://h not saved (ENOSPC)');
    expect(leaks(unsaved)).toEqual([]);
    backend.clearFaults();
    await closeAll(d, h.s);
  });

  it('REG-5: removeNode() whose file cannot be removed fails with a code, and neither its message nor its cause names the file (the url, encoded)', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'r', backend, sync: { connect: () => { throw new Error('not dialed'); } } });
    await s.sync.addNode({ url: SECRET_URL, token: 't' });
    backend.failAt(1, { code: 'EACCES', persistent: true, ops: ['remove'] });
    const e = await s.sync.removeNode(SECRET_URL).then(() => undefined, (x: SyncomError) => x);
    expect(e).toMatchObject({ code: 'REGISTRY_UNSAVED', url: SECRET_URL, cause: { code: 'EACCES' } });
    expect(e?.message).toContain('memory://h');
    const cause = e?.cause as (Error & { path?: unknown }) | undefined;
    const told = `${e?.message} ${cause?.message} ${String(cause?.path)} ${cause?.stack}`;
    expect(SECRETS.filter((x) => told.includes(x))).toEqual([]);
    backend.clearFaults();
    await s.close();
  });

  it('REG-4 REG-5: a removeNode() refused REGISTRY_UNSAVED may be called again, and its file is removed then', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'r', backend, sync: { connect: () => { throw new Error('not dialed'); } } });
    await s.sync.addNode({ url: SECRET_URL, token: 't' });
    backend.failAt(1, { code: 'EACCES', persistent: true, ops: ['remove'] });
    await expect(s.sync.removeNode(SECRET_URL)).rejects.toMatchObject({ code: 'REGISTRY_UNSAVED' });
    backend.clearFaults();
    // The file stays until it goes: the node would come back at the next open with its cursor.
    expect(await backend.list('remote')).toEqual([nodeFile(SECRET_URL).slice('remote/'.length)]);
    await s.sync.removeNode(SECRET_URL);
    expect(await backend.list('remote')).toEqual([]);
    expect(s.sync.listNodes()).toEqual([]);
    await s.close();
  });

  it('REG-5: the cause of REGISTRY_UNSAVED names the file by its url label, not by its name', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'r', backend, sync: { connect: () => { throw new Error('not dialed'); } } });
    backend.failAt(1, { code: 'ENOSPC', persistent: true, ops: ['write'] });
    const e = await s.sync.addNode({ url: SECRET_URL, token: 't' }).then(() => undefined, (x: SyncomError) => x);
    expect(e).toMatchObject({ code: 'REGISTRY_UNSAVED', url: SECRET_URL, cause: { code: 'ENOSPC' } });
    const cause = e?.cause as (Error & { path?: unknown }) | undefined;
    const told = `${e?.message} ${cause?.message} ${String(cause?.path)} ${cause?.stack}`;
    expect(SECRETS.filter((x) => told.includes(x))).toEqual([]);
    expect(cause?.message).toContain('remote/<file of memory://h>');
    backend.clearFaults();
    await s.close();
  });

  it('OP_UNREADABLE of a torn registry file names it by its url without credentials: the file name is the url percent-encoded', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'r', backend, sync: { connect: () => { throw new Error('not dialed'); } } });
    await s.sync.addNode({ url: SECRET_URL, token: 't' });
    await s.close();
    await backend.write(nodeFile(SECRET_URL), '{ torn');
    const again = await open({ path: 'r', backend });
    const [e] = again.startupErrors;
    expect(e).toMatchObject({ code: 'OP_UNREADABLE' });
    expect(e.message).toContain('remote/<file of memory://h>');
    expect(leaks(e)).toEqual([]);
    expect(e.message).not.toMatch(/pw-SECRET|KEY-SECRET|pw%2DSECRET|KEY%2DSECRET/);
    await again.close();
  });
});
