import fs from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsBackend } from '../../src/backend';
import type { Backend } from '../../src/backend/types';

/**
 * The log's small in-place writes without durable skip libuv's pool:
 * open-write-close on the main thread, a few per event-loop turn. Durable
 * ones stay on the pool (a create on the main thread could wait there for a
 * journal commit that the fsyncs start).
 */
describe('fs backend: small in-place writes on the main thread', () => {
  let root: string;
  let backend: Backend;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'syncom-fs-main-'));
    backend = createFsBackend(root);
    await backend.mkdir('log/open');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(root, { recursive: true, force: true });
  });

  it('GUAR-17: a durable in-place write stays on the pool and fsyncs the file and its directory before it resolves', async () => {
    const handle = await open(root, 'r');
    await handle.close();
    const sync = jest.spyOn(Object.getPrototypeOf(handle) as { sync(): Promise<void> }, 'sync');
    const write = jest.spyOn(fs, 'writeFileSync');
    await backend.write('log/open/1.json', '{"from":1}', { durable: true, inPlace: true });
    expect(sync).toHaveBeenCalledTimes(2);
    expect(write).not.toHaveBeenCalled();
    expect(await readFile(join(root, 'log/open/1.json'), 'utf8')).toBe('{"from":1}');
  });

  it('GUAR-17: without durable an in-place write fsyncs nothing, and replaces what was there', async () => {
    const fsync = jest.spyOn(fs, 'fsync');
    await backend.write('log/open/1.json', 'a longer first text', { inPlace: true });
    await backend.write('log/open/1.json', 'short', { inPlace: true });
    expect(fsync).not.toHaveBeenCalled();
    expect(await backend.read('log/open/1.json')).toBe('short');
  });

  /** `n` awaited small in-place writes (on backend `b`); the turns the event loop took meanwhile. */
  async function writesCountingTurns(n: number, b = backend): Promise<number> {
    let turns = 0;
    let on = true;
    const spin = () => { if (on) { turns++; setImmediate(spin); } };
    setImmediate(spin);
    for (let i = 0; i < n; i++) await b.write(`log/open/${i}.json`, `{"from":${i}}`, { inPlace: true });
    on = false;
    return turns;
  }

  it('a loop of awaited small writes still lets the event loop turn (timers, sockets, the record files)', async () => {
    // At most 4 main-thread writes a turn: 64 awaited writes give the loop at least 12 turns.
    expect(await writesCountingTurns(64)).toBeGreaterThanOrEqual(12);
    expect(await backend.list('log/open')).toHaveLength(64);
  });

  it('past four writes in a turn, the next waits for the loop to turn and is made on the main thread too, not through the pool', async () => {
    const write = jest.spyOn(fs, 'writeFileSync');
    // A fresh module and a clock that stands still: on a loaded machine a write slower than 0.5 ms would
    // send the next second's writes to the pool, which another test covers.
    let fresh!: typeof import('../../src/backend');
    jest.isolateModules(() => (fresh = require('../../src/backend')));
    jest.spyOn(performance, 'now').mockReturnValue(1);
    expect(await writesCountingTurns(20, fresh.createFsBackend(root))).toBeGreaterThanOrEqual(4);
    expect(write).toHaveBeenCalledTimes(20);
    expect(await backend.list('log/open')).toHaveLength(20);
  });

  it('a write above 64 KiB goes to the pool (the main thread is not held by a large batch)', async () => {
    const write = jest.spyOn(fs, 'writeFileSync');
    await backend.write('log/open/big.json', 'x'.repeat(70 * 1024), { inPlace: true });
    expect(write).not.toHaveBeenCalled();
    expect((await backend.read('log/open/big.json'))?.length).toBe(70 * 1024);
  });

  it('after a slow main-thread write (a contended disk), the next writes go to the pool for a while', async () => {
    // The clock the backend reads, moved 2 ms by each write: a slow write without a busy wait, and a pause that
    // no load on the machine can run out before the next write.
    let now = 1000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    const real = fs.writeFileSync;
    const write = jest.spyOn(fs, 'writeFileSync').mockImplementation((...a: Parameters<typeof fs.writeFileSync>) => {
      now += 2;
      real(...a);
    });
    // A fresh module: a real write of an earlier test may have been slow on a loaded machine.
    let fresh!: typeof import('../../src/backend');
    jest.isolateModules(() => (fresh = require('../../src/backend')));
    const b = fresh.createFsBackend(root);
    await b.write('log/open/1.json', 'first', { inPlace: true });
    expect(write).toHaveBeenCalledTimes(1);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await b.write('log/open/2.json', 'second', { inPlace: true });
    expect(write).toHaveBeenCalledTimes(1);
    expect(await b.read('log/open/2.json')).toBe('second');
  });

  it('the pause after a slow write is twenty times what it took, between 2 ms and 100 ms', () => {
    let turns!: typeof import('../../src/backend/fs-turns');
    jest.isolateModules(() => (turns = require('../../src/backend/fs-turns')));
    expect(turns.slowPause(0.6)).toBe(12);
    expect(turns.slowPause(0.01)).toBe(2);
    expect(turns.slowPause(30)).toBe(100);
  });

  it('a write that was slow once (1 ms) sends the next writes of its kind to the pool for 20 ms, then the main thread writes again', async () => {
    let now = 1000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    const real = fs.writeFileSync;
    let slow = true;
    const write = jest.spyOn(fs, 'writeFileSync').mockImplementation((...a: Parameters<typeof fs.writeFileSync>) => {
      if (slow) now += 1;
      real(...a);
    });
    let fresh!: typeof import('../../src/backend');
    jest.isolateModules(() => (fresh = require('../../src/backend')));
    const b = fresh.createFsBackend(root);
    await b.write('log/open/1.json', 'first', { inPlace: true });
    slow = false;
    now += 19;
    await b.write('log/open/2.json', 'second', { inPlace: true });
    expect(write).toHaveBeenCalledTimes(1);
    now += 2;
    await b.write('log/open/3.json', 'third', { inPlace: true });
    expect(write).toHaveBeenCalledTimes(2);
    expect(await b.read('log/open/2.json')).toBe('second');
    expect(await b.read('log/open/3.json')).toBe('third');
  });
});
