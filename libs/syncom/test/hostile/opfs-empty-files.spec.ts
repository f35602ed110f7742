import type { SyncomError } from '../../src/errors';
import { internals } from '../../src/testing/internals';
import { FakeLocks, FakeOpfs } from '../backend/fake-opfs';
import { openTab, origin } from '../backend/opfs-helpers';

/**
 * OPFS creates a file, empty, as soon as its handle is made, before a
 * writable stream commits the content. A tab that died in between left an
 * empty file, which the next open() took for a torn one: an empty public key
 * beside a whole private key made every later open fail, and an empty record
 * file was reported unreadable. Now an empty file is missing to
 * the OPFS backend (read, list, exists), and the engine never writes one.
 */

/** The tab died: a reload is a new page, whose Web Locks the dead one no longer holds. */
async function reload(fs: FakeOpfs, errors: SyncomError[] = []) {
  const s = await openTab({ fs, locks: new FakeLocks() });
  s.on('error', (e) => errors.push(e));
  await new Promise((r) => setImmediate(r)); // open() reports what it found unreadable on the next turn
  return s;
}

describe('hostile: empty files a dead tab left in OPFS', () => {
  it('GUAR-18: a tab that died while the first open wrote the public key: the next open makes the pair whole, and keeps it', async () => {
    const o = { fs: new FakeOpfs(), locks: new FakeLocks() };
    o.fs.dieAtNextClose((p) => p === 'notes/keys/sign-public.pem');
    await expect(openTab(o)).rejects.toBeDefined();
    expect(o.fs.text('notes/keys/sign-public.pem')).toBe('');
    const s = await reload(o.fs);
    await s.set('a', { title: 'one' });
    const id = s.id;
    await s.close();
    const again = await reload(o.fs);
    expect(again.id).toBe(id);
    expect(await again.get('a')).toEqual({ title: 'one' });
    await again.close();
  });

  it('GUAR-18: a tab that died before a new record file was committed: the next open reports nothing unreadable, and the replayed log restores the write', async () => {
    const o = await origin();
    const s = await openTab(o);
    await s.set('a', { title: 'one' });
    await internals(s).committer.idle();
    o.fs.dieAtNextClose((p) => p.startsWith('notes/records/'));
    await s.update('a', { title: 'logged' });
    await internals(s).committer.idle();
    await s.close().catch(() => undefined);
    expect(o.fs.paths().some((p) => p.endsWith('.crswap'))).toBe(true);
    const errors: SyncomError[] = [];
    const after = await reload(o.fs, errors);
    expect(errors).toEqual([]);
    expect(await after.get('a')).toEqual({ title: 'logged' });
    await after.close();
  });
});
