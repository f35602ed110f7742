import { createSchema, type Storage, type StorageEvents } from '../../src';
import { buildNoteClass } from '../schema/fixtures';
import { closeAll, dialer, hub, Net, until } from './helpers';
import { record, waitFor } from './scenario-helpers';

const URL = 'memory://hub';

/** Drift events a storage emits. */
function drifts(s: Storage) {
  const seen: StorageEvents['schema'][0][] = [];
  s.on('schema', (e) => seen.push(e));
  return seen;
}

describe('schemas over sync', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => { warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined); });
  afterEach(() => warn.mockRestore());

  it('SCHEMA-1 SCHEMA-3 SCHEMA-4: hello carries { version, hash } both ways, or null; the dialer keeps it as remote.schema; peer and hello events carry it', async () => {
    const net = new Net();
    const hostSchema = { version: 2, types: { Note: buildNoteClass() } };
    const h = await hub({}, { schema: hostSchema });
    net.units.set(URL, h.unit);
    const hellos = record(h.s, 'hello');
    const d = await dialer(net);
    const peers = record(d, 'peer');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => peers.length === 1 && hellos.length === 1, [d, h.s]);
    const info = createSchema(hostSchema).info();
    expect(d.sync.listNodes()[0].remote.schema).toEqual(info);
    expect(peers[0].schema).toEqual(info);
    expect(hellos[0].schema).toBeNull();
    const s = await dialer(net, { schema: { version: 5, types: { Note: buildNoteClass() } } });
    await s.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => hellos.length === 2, [h.s]);
    expect(hellos[1].schema).toEqual(createSchema({ version: 5, types: { Note: buildNoteClass() } }).info());
    await closeAll(d, s, h.s);
  });

  it('SCHEMA-2: authorize sees hello.schema and may refuse on it', async () => {
    const net = new Net();
    const h = await hub({ authorize: (_c, hello) => (hello.schema?.version ?? 0) >= 2 });
    net.units.set(URL, h.unit);
    const old = await dialer(net, { schema: { version: 1, types: { Note: buildNoteClass() } } });
    const current = await dialer(net, { schema: { version: 2, types: { Note: buildNoteClass() } } });
    const errors = record(old, 'error');
    const peers = record(current, 'peer');
    await old.sync.addNode({ url: URL });
    await current.sync.addNode({ url: URL });
    await waitFor(() => errors.length === 1 && peers.length === 1, [old, current]);
    expect(errors[0]).toMatchObject({ code: 'UNAUTHORIZED', status: 401, url: URL });
    expect(peers[0]).toMatchObject({ connected: true });
    await closeAll(old, current, h.s);
  });

  it('SCHEMA-5 SCHEMA-6: the same version with another hash is drift — both sides emit schema { kind: drift, peer, version, hash, local } and warn; the link stays up', async () => {
    const net = new Net();
    const hostSchema = { version: 4, types: { Note: buildNoteClass() } };
    const dialSchema = { version: 4, types: { Note: buildNoteClass({ minRank: 5 }) } };
    const h = await hub({}, { schema: hostSchema });
    net.units.set(URL, h.unit);
    const d = await dialer(net, { schema: dialSchema });
    const atHost = drifts(h.s);
    const atDialer = drifts(d);
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => atHost.length === 1 && atDialer.length === 1, [d, h.s]);
    const hostInfo = createSchema(hostSchema).info();
    const dialInfo = createSchema(dialSchema).info();
    expect(atDialer[0]).toEqual({ kind: 'drift', peer: h.s.id, version: 4, hash: hostInfo.hash, local: dialInfo });
    expect(atHost[0]).toEqual({ kind: 'drift', peer: d.id, version: 4, hash: dialInfo.hash, local: hostInfo });
    expect(warn).toHaveBeenCalledTimes(2);
    const there = await d.insert({ $type: 'Note', title: 'still syncing', tags: [] });
    const back = await h.s.insert({ $type: 'Note', title: 'both ways', tags: [] });
    await until(async () => (await h.s.has(there)) && (await d.has(back)), [d, h.s]);
    expect(d.sync.peers()[0].connected).toBe(true);
    await closeAll(d, h.s);
  });

  it('SCHEMA-7: another version is not drift, and neither is a side without a schema', async () => {
    const net = new Net();
    const h = await hub({}, { schema: { version: 4, types: { Note: buildNoteClass() } } });
    net.units.set(URL, h.unit);
    const newer = await dialer(net, { schema: { version: 5, types: { Note: buildNoteClass({ minRank: 5 }) } } });
    const plain = await dialer(net);
    const seen = [drifts(h.s), drifts(newer), drifts(plain)];
    const peers = [record(newer, 'peer'), record(plain, 'peer')];
    await newer.sync.addNode({ url: URL, token: 't' });
    await plain.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => peers.every((p) => p.length === 1), [newer, plain]);
    expect(seen).toEqual([[], [], []]);
    expect(warn).not.toHaveBeenCalled();
    await closeAll(newer, plain, h.s);
  });
});
