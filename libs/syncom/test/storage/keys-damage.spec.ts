import { createPublicKey } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSyncomError, open } from '../../src';
import { generateSealingKeys, type PemKeyPair } from '../../src/op';

/**
 * keys/ damaged while the store was closed (a partial restore, a file copied
 * from another store, bit rot). open() used to make a new pair whenever one
 * file of it was missing, writing over the half that survived, and took the
 * node id from sign-public.pem whatever the private key was. Now a pair is
 * made only when both files are absent in a store with no log, a lost public
 * half is made again from the private one, and anything else is refused.
 */

let root: string;
beforeEach(async () => { root = await mkdtemp(join(tmpdir(), 'syncom-keys-damage-')); });
afterEach(async () => { await rm(root, { recursive: true, force: true }); });

// RSA key generation costs ~100 ms: the stores share this pair unless a test needs another.
let sealing: Promise<PemKeyPair> | undefined;

/** A store at root/<name> that holds a log: one plain and one sealed record, closed. */
async function store(name: string, seal?: PemKeyPair) {
  const path = join(root, name);
  const pair = seal ?? (await (sealing ??= generateSealingKeys()));
  await mkdir(join(path, 'keys'), { recursive: true });
  await writeFile(join(path, 'keys/seal-public.pem'), pair.publicPem);
  await writeFile(join(path, 'keys/seal-private.pem'), pair.privatePem);
  const s = await open({ path });
  const plain = await s.insert({ title: 'plain' });
  const sealed = await s.insert({ pin: '1234' }, { sealed: true });
  const id = s.id;
  await s.close();
  return { path, id, plain, sealed, file: (f: string) => join(path, 'keys', f) };
}

/** Every file of keys/ with its text. */
async function keyFiles(path: string): Promise<Record<string, string>> {
  const names = (await readdir(join(path, 'keys'))).sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(join(path, 'keys', n), 'utf8')] as const)));
}

/** open() of `path` refused with STORE_DAMAGED naming `file`, keys/ left as it was. */
async function expectDamaged(path: string, file: string, says: RegExp): Promise<void> {
  const before = await keyFiles(path);
  const refused = await open({ path }).then(
    async (s) => { await s.close(); return undefined; },
    (e: unknown) => e,
  );
  expect(isSyncomError(refused, 'STORE_DAMAGED')).toBe(true);
  expect(refused).toMatchObject({ file });
  expect((refused as Error).message).toMatch(says);
  expect(await keyFiles(path)).toEqual(before);
}

describe('damaged keys/ at open()', () => {
  it('SIG-4: a lost sign-public.pem is made again from sign-private.pem: the same node id, the private key untouched', async () => {
    const a = await store('a');
    const before = await keyFiles(a.path);
    await unlink(a.file('sign-public.pem'));
    const s = await open({ path: a.path });
    expect(s.id).toBe(a.id);
    expect(await s.get(a.plain)).toEqual({ title: 'plain' });
    await s.close();
    // The very text Node writes for that key, so the file is as it was.
    expect(await keyFiles(a.path)).toEqual(before);
  });

  it('SIG-4: a lost seal-public.pem is made again from seal-private.pem: the private key untouched, sealed records still open', async () => {
    const a = await store('a');
    const before = await keyFiles(a.path);
    await unlink(a.file('seal-public.pem'));
    const s = await open({ path: a.path });
    expect(await s.get(a.sealed)).toEqual({ pin: '1234' });
    const later = await s.insert({ pin: '5678' }, { sealed: true });
    await s.close();
    expect(await keyFiles(a.path)).toEqual(before);
    const again = await open({ path: a.path });
    expect(await again.get(later)).toEqual({ pin: '5678' });
    await again.close();
  });

  it('SIG-4: a lost sign-private.pem beside its public half is refused (STORE_DAMAGED): no new identity, nothing in keys/ written', async () => {
    const a = await store('a');
    await unlink(a.file('sign-private.pem'));
    await expectDamaged(a.path, 'keys/sign-private.pem', /keys\/sign-private\.pem is missing: restore keys\/ from a backup/);
  });

  it('SIG-4: a lost seal-private.pem beside its public half is refused (STORE_DAMAGED): the sealed records need it', async () => {
    const a = await store('a');
    await unlink(a.file('seal-private.pem'));
    await expectDamaged(a.path, 'keys/seal-private.pem', /keys\/seal-private\.pem is missing: restore keys\/ from a backup \(sealed records need it\)/);
  });

  it('SIG-4: keys/ gone from a store that holds a log is refused, not a new node id beside the old records', async () => {
    const a = await store('a');
    await rm(join(a.path, 'keys'), { recursive: true });
    await mkdir(join(a.path, 'keys'));
    await expectDamaged(a.path, 'keys/sign-private.pem', /missing beside the store's log: restore keys\/ from a backup, or move log\/ and records\/ away to start as a new node/);
    expect(await readdir(join(a.path, 'keys'))).toEqual([]);
  });

  it('SIG-4: the sealing pair gone from a store that holds a log is refused rather than made anew (sealed records would never open)', async () => {
    const a = await store('a');
    await unlink(a.file('seal-private.pem'));
    await unlink(a.file('seal-public.pem'));
    await expectDamaged(a.path, 'keys/seal-private.pem', /keys\/seal-private\.pem and keys\/seal-public\.pem are missing beside the store's log/);
  });

  it('SIG-4: a store with no log yet gets the pair it lacks, and keeps the one it has (a first open cut short, seeded keys)', async () => {
    const seal = await (sealing ??= generateSealingKeys());
    const path = join(root, 'fresh');
    await mkdir(join(path, 'keys'), { recursive: true });
    await writeFile(join(path, 'keys/seal-public.pem'), seal.publicPem);
    await writeFile(join(path, 'keys/seal-private.pem'), seal.privatePem);
    const s = await open({ path });
    const id = s.id;
    await s.close();
    const files = await keyFiles(path);
    expect(Object.keys(files)).toEqual(['seal-private.pem', 'seal-public.pem', 'sign-private.pem', 'sign-public.pem']);
    expect(files['seal-private.pem']).toBe(seal.privatePem);
    const again = await open({ path });
    expect(again.id).toBe(id);
    await again.close();
  });

  it('SIG-4, GUAR-18: a store with no log whose first open was cut while it wrote a pair (a half torn, where writes are not atomic) gets the pair made again, or its public half made again from the private one', async () => {
    const seal = await (sealing ??= generateSealingKeys());
    const fresh = async (name: string) => {
      const path = join(root, name);
      await mkdir(join(path, 'keys'), { recursive: true });
      await writeFile(join(path, 'keys/seal-public.pem'), seal.publicPem);
      await writeFile(join(path, 'keys/seal-private.pem'), seal.privatePem);
      return path;
    };
    // The private half torn, the public one never written: a new pair.
    const a = await fresh('torn-private');
    await writeFile(join(a, 'keys/sign-private.pem'), '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQ');
    const s = await open({ path: a });
    const id = s.id;
    await s.close();
    const again = await open({ path: a });
    expect(again.id).toBe(id);
    await again.close();
    // The private half whole, the public one torn: made again from the private one, the same node id.
    const b = await fresh('torn-public');
    const first = await open({ path: b });
    const idB = first.id;
    await first.close();
    await rm(join(b, 'log'), { recursive: true, force: true });
    await rm(join(b, 'records'), { recursive: true, force: true });
    await writeFile(join(b, 'keys/sign-public.pem'), '-----BEGIN PUBLIC KEY-----\nMCowBQ');
    const second = await open({ path: b });
    expect(second.id).toBe(idB);
    await second.close();
    // A node registered here (remote/) means a first open completed: a torn private half now is damage, never a new id.
    const c = await fresh('registered');
    const third = await open({ path: c });
    await third.sync.addNode({ url: 'wss://hub.example/api', token: 't' });
    await third.close();
    await rm(join(c, 'log'), { recursive: true, force: true });
    await rm(join(c, 'records'), { recursive: true, force: true });
    await writeFile(join(c, 'keys/sign-private.pem'), '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQ');
    await expectDamaged(c, 'keys/sign-private.pem', /cannot be read as a key/);
  });

  it("SIG-4: another store's sign-public.pem is refused (STORE_DAMAGED): the node id never comes from a foreign public file", async () => {
    const [a, b] = [await store('a'), await store('b')];
    await copyFile(b.file('sign-public.pem'), a.file('sign-public.pem'));
    await expectDamaged(a.path, 'keys/sign-public.pem', /keys\/sign-public\.pem does not match keys\/sign-private\.pem/);
  });

  it("SIG-4: another store's sign-private.pem is refused (STORE_DAMAGED): its signatures would not verify against the node id", async () => {
    const [a, b] = [await store('a'), await store('b')];
    await copyFile(b.file('sign-private.pem'), a.file('sign-private.pem'));
    await expectDamaged(a.path, 'keys/sign-public.pem', /does not match keys\/sign-private\.pem/);
  });

  it("SIG-4: another store's seal-public.pem is refused (STORE_DAMAGED): new records would be sealed for a key this node lacks", async () => {
    const a = await store('a');
    const b = await store('b', await generateSealingKeys());
    expect(createPublicKey(await readFile(b.file('seal-public.pem'), 'utf8')).equals(createPublicKey(await readFile(a.file('seal-public.pem'), 'utf8')))).toBe(false);
    await copyFile(b.file('seal-public.pem'), a.file('seal-public.pem'));
    await expectDamaged(a.path, 'keys/seal-public.pem', /keys\/seal-public\.pem does not match keys\/seal-private\.pem/);
  });

  it('SIG-4: a sign-private.pem that does not parse is STORE_DAMAGED naming the file (damage, not a bad argument)', async () => {
    const a = await store('a');
    const text = await readFile(a.file('sign-private.pem'), 'utf8');
    await writeFile(a.file('sign-private.pem'), text.slice(0, text.length >> 1));
    await expectDamaged(a.path, 'keys/sign-private.pem', /keys\/sign-private\.pem cannot be read as a key/);
  });

  it('SIG-4: a sign-public.pem that does not parse is refused, and the message says it can be removed to be made again', async () => {
    const a = await store('a');
    await writeFile(a.file('sign-public.pem'), '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n');
    await expectDamaged(a.path, 'keys/sign-public.pem', /remove it, and open\(\) makes it again from keys\/sign-private\.pem/);
    await unlink(a.file('sign-public.pem'));
    const s = await open({ path: a.path });
    expect(s.id).toBe(a.id);
    await s.close();
  });
});
