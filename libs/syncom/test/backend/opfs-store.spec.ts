import type { SyncomError } from '../../src/errors';
import type { Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { FakeLocks } from './fake-opfs';
import type { FakeOpfs } from './fake-opfs';
import { openTab, origin } from './opfs-helpers';

const HUB = 'wss://hub.example/api';
const LOG_OPEN = 'notes/log/open/';

/** The page died: a reload is a new page of the same origin, whose Web Locks the dead page no longer holds. */
async function reload(fs: FakeOpfs, errors: SyncomError[] = []): Promise<Storage> {
  const s = await openTab({ fs, locks: new FakeLocks() });
  s.on('error', (e) => errors.push(e));
  await new Promise((r) => setImmediate(r)); // open() reports what it found unreadable on the next turn
  return s;
}

const newestBatch = (fs: FakeOpfs): string => {
  const batches = fs.paths().filter((p) => p.startsWith(LOG_OPEN)).sort((a, b) => parseInt(a.slice(LOG_OPEN.length)) - parseInt(b.slice(LOG_OPEN.length)));
  return batches[batches.length - 1];
};

describe('a store on OPFS (the engine over the opfs backend)', () => {
  it('REG-8: records, keys (the node id) and the remote/ registry survive a close and a reopen, in the fs layout', async () => {
    const o = await origin();
    const s = await openTab(o);
    const id = s.id;
    await s.set('a', { title: 'kept', n: 1 });
    await s.sync.addNode({ url: HUB, token: 'secret', scopes: ['*'] });
    await s.close();
    const dirs = new Set(o.fs.paths().map((p) => p.split('/')[1]));
    expect([...dirs].sort()).toEqual(['format.json', 'keys', 'log', 'records', 'remote']);
    expect(o.fs.paths()).toContain(`notes/remote/${encodeURIComponent(HUB)}.json`);
    const again = await openTab(o);
    expect(again.id).toBe(id);
    expect(await again.get('a')).toEqual({ title: 'kept', n: 1 });
    expect(again.sync.listNodes()).toEqual([expect.objectContaining({ url: HUB, token: 'secret', scopes: ['*'], enabled: true })]);
    await again.close();
  });

  it('GUAR-18: a power cut tearing the newest, unannounced batch: the store opens, every write announced before is there, the torn write is not', async () => {
    const o = await origin();
    const s = await openTab(o);
    await s.set('a', { title: 'one' });
    await s.set('b', { title: 'two' });
    await internals(s).committer.idle();
    o.fs.dieAtNextClose((p) => p.startsWith(LOG_OPEN), 12);
    await expect(s.set('c', { title: 'torn' })).rejects.toMatchObject({ code: 'IO_ERROR' });
    await s.close().catch(() => undefined);
    expect(o.fs.text(newestBatch(o.fs))).toHaveLength(12);
    const errors: SyncomError[] = [];
    const after = await reload(o.fs, errors);
    expect(errors).toEqual([]);
    expect(await after.get('a')).toEqual({ title: 'one' });
    expect(await after.get('b')).toEqual({ title: 'two' });
    expect(await after.get('c')).toBeUndefined();
    await after.set('d', { title: 'after' });
    await after.close();
    const third = await reload(o.fs);
    expect((await third.list()).map((r) => r.id).sort()).toEqual(['a', 'b', 'd']);
    await third.close();
  });

  it('GUAR-18: a power cut tearing log/index.json (or leaving it empty) as a seal rewrites it: the store opens from the copy written just before, with every write announced', async () => {
    for (const keep of [10, 0]) {
      const o = await origin();
      const s = await openTab(o, {}, { sync: { log: { rollAfter: 2 } } });
      await s.set('a', { title: 'one' });
      await s.set('b', { title: 'two' });
      await s.set('c', { title: 'three' });
      await internals(s).committer.idle();
      // The next seal (two more batches) writes index.next.json, then index.json: the page dies inside the second.
      o.fs.dieAtNextClose((p) => p === 'notes/log/index.json', keep);
      await s.set('d', { title: 'four' });
      await s.set('e', { title: 'five' }).catch(() => undefined);
      await internals(s).committer.idle().catch(() => undefined);
      await s.close().catch(() => undefined);
      expect(o.fs.text('notes/log/index.json')).toHaveLength(keep);
      const errors: SyncomError[] = [];
      const after = await reload(o.fs, errors);
      expect(errors).toEqual([]);
      for (const [id, title] of [['a', 'one'], ['b', 'two'], ['c', 'three'], ['d', 'four']]) expect(await after.get(id)).toEqual({ title });
      await after.set('f', { title: 'after' });
      await after.close();
      const third = await reload(o.fs);
      expect((await third.list()).length).toBeGreaterThanOrEqual(5);
      await third.close();
    }
  });

  it('GUAR-18: the newest log file cut by hand after the page died: the store opens with everything announced before it', async () => {
    const o = await origin();
    const s = await openTab(o);
    for (const id of ['a', 'b', 'c']) await s.set(id, { title: id });
    await internals(s).committer.idle();
    o.fs.crash();
    const newest = newestBatch(o.fs);
    o.fs.cut(newest, Math.floor((o.fs.text(newest) as string).length / 2));
    const after = await reload(o.fs);
    expect(await after.get('a')).toEqual({ title: 'a' });
    expect(await after.get('b')).toEqual({ title: 'b' });
    await after.set('d', { title: 'd' });
    expect(await after.get('d')).toEqual({ title: 'd' });
    await after.close();
  });
});
