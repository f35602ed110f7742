import type { Backend } from '../../src/backend';
import { isSyncomError } from '../../src/errors';

/** A backend under test and how to dispose of it. */
export interface BackendFixture {
  backend: Backend;
  cleanup(): Promise<void>;
}

type Get = () => Backend;

/** What a backend does differently, where its platform leaves no choice. */
export interface BackendCaps {
  /** An empty file is missing to read, exists and list (OPFS: a file a dead page created but never committed is empty). */
  emptyIsMissing?: boolean;
}

/** Expect `promise` to reject with a SyncomError INVALID_ARGUMENT. */
export async function expectInvalid(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(isSyncomError(error, 'INVALID_ARGUMENT')).toBe(true);
}

/**
 * The conformance suite of the Backend port: every implementation must pass it.
 * @example runBackendTests('memory', async () => ({ backend: createMemoryBackend(), cleanup: async () => {} }))
 */
export function runBackendTests(name: string, make: () => Promise<BackendFixture>, caps: BackendCaps = {}): void {
  describe(`Backend conformance: ${name}`, () => {
    let fixture: BackendFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });
    const get: Get = () => fixture.backend;
    fileTests(get, caps);
    overwriteTests(get);
    listTests(get);
    pathTests(get);
    concurrencyTests(get);
    lockTests(get);
  });
}

function fileTests(b: Get, caps: BackendCaps): void {
  it('reads a missing file as undefined', async () => {
    expect(await b().read('missing')).toBeUndefined();
    expect(await b().exists('missing')).toBe(false);
  });
  it('round-trips a write, and the empty string', async () => {
    await b().write('a', 'hello\nworld');
    await b().write('empty', '');
    expect(await b().read('a')).toBe('hello\nworld');
    expect(await b().read('empty')).toBe(caps.emptyIsMissing ? undefined : '');
    expect(await b().exists('empty')).toBe(!caps.emptyIsMissing);
  });
  it('replaces a file on write, longer then shorter', async () => {
    await b().write('a', 'a long first content');
    await b().write('a', 'short');
    expect(await b().read('a')).toBe('short');
  });
  it('GUAR-17: a write with { durable: true } reads back', async () => {
    await b().write('d', 'durable', { durable: true });
    await b().write('d', 'durable again', { durable: true });
    expect(await b().read('d')).toBe('durable again');
  });
  it('round-trips unicode content', async () => {
    const text = 'héllo — 日本語 🚀 e\u0301 \u2028 \uFEFF\u0000 end';
    await b().write('u', text);
    expect(await b().read('u')).toBe(text);
  });
  it('removes a file, and a missing one without error', async () => {
    await b().write('a', 'x');
    await b().remove('a');
    await b().remove('a');
    await b().remove('never/was');
    expect(await b().read('a')).toBeUndefined();
    expect(await b().exists('a')).toBe(false);
  });
  it('refuses a write into a missing directory with ENOENT', async () => {
    await expect(b().write('no/such/file', 'x')).rejects.toMatchObject({ code: 'ENOENT' });
  });
}

function overwriteTests(b: Get): void {
  it('GUAR-20: overwrite rewrites in place, truncating a longer old content', async () => {
    await b().write('f', 'the old, longer content');
    await b().overwrite('f', 'new');
    expect(await b().read('f')).toBe('new');
    await b().overwrite('f', 'newer and longer');
    expect(await b().read('f')).toBe('newer and longer');
  });
  it('GUAR-20: overwrite creates a missing file', async () => {
    await b().overwrite('g', 'created');
    expect(await b().read('g')).toBe('created');
  });
  it('GUAR-17: an overwrite with { durable: true } reads back', async () => {
    await b().write('f', 'old');
    await b().overwrite('f', 'scrubbed', { durable: true });
    expect(await b().read('f')).toBe('scrubbed');
  });
}

function listTests(b: Get): void {
  it('lists file names sorted by code unit, files only', async () => {
    await b().mkdir('d/sub');
    for (const n of ['b', 'a', 'C', 'a1']) await b().write(`d/${n}`, n);
    expect(await b().list('d')).toEqual(['C', 'a', 'a1', 'b']);
  });
  it('lists a missing directory as []', async () => {
    expect(await b().list('missing')).toEqual([]);
    expect(await b().list('missing/deeper')).toEqual([]);
  });
  it('makes nested directories, idempotently', async () => {
    await b().mkdir('a/b/c');
    await b().mkdir('a/b/c');
    await b().mkdir('a/b');
    expect(await b().list('a/b/c')).toEqual([]);
    expect(await b().exists('a/b')).toBe(true);
    await b().write('a/b/c/f', 'x');
    expect(await b().list('a/b/c')).toEqual(['f']);
  });
  it('lists the root as the empty path', async () => {
    await b().write('r', 'x');
    expect(await b().list('')).toEqual(['r']);
  });
}

const BAD_PATHS = ['../x', 'a/../../x', '..', 'a/..', '/etc/passwd', 'C:/x', 'c:x', 'a\\..\\..\\x', 'a\0b', ''];

function pathTests(b: Get): void {
  it.each(BAD_PATHS)('rejects the path %j with INVALID_ARGUMENT in every method', async (path) => {
    await expectInvalid(b().read(path));
    await expectInvalid(b().write(path, 'x'));
    await expectInvalid(b().overwrite(path, 'x', { durable: true }));
    await expectInvalid(b().remove(path));
    if (path === '') return; // '' is the root, a valid directory
    await expectInvalid(b().list(path));
    await expectInvalid(b().mkdir(path));
    await expectInvalid(b().exists(path));
  });
  it('rejects writing a name reserved for temp files', async () => {
    await expectInvalid(b().write('x.tmp-1', 'x'));
  });
  it("normalizes empty and '.' segments", async () => {
    await b().mkdir('./a//b/');
    await b().write('a//./b/f', 'x');
    expect(await b().read('a/b/f')).toBe('x');
    expect(await b().list('a/b/')).toEqual(['f']);
  });
}

function concurrencyTests(b: Get): void {
  it('lands concurrent writes to different files', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((n) => b().write(n, `content of ${n}`)));
    expect(await b().list('')).toEqual(names);
    for (const n of names) expect(await b().read(n)).toBe(`content of ${n}`);
  });
  it('leaves one whole content after concurrent writes to the same file', async () => {
    const contents = Array.from({ length: 10 }, (_, i) => String(i).repeat(10_000 + i));
    await Promise.all(contents.map((c) => b().write('same', c)));
    expect(contents).toContain(await b().read('same'));
  });
}

/** One open storage per store (DESIGN: one owner per storage path): a backend that can lock holds one lock at a time. */
function lockTests(b: Get): void {
  it('lock: a second lock while one is held is LOCKED (423); after release it is taken again; releasing twice is harmless', async () => {
    const backend = b();
    if (!backend.lock) return;
    const first = await backend.lock('store');
    await expect(backend.lock('store')).rejects.toMatchObject({ code: 'LOCKED', status: 423, pid: process.pid });
    await first.release();
    await first.release();
    const second = await backend.lock('store');
    await expect(backend.lock('store')).rejects.toMatchObject({ code: 'LOCKED' });
    await second.release();
  });
}
