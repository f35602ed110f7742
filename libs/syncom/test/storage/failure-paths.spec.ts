import 'reflect-metadata';
import { createMemoryBackend, open, type SyncomError } from '../../src';
import { checkOp } from '../../src/op';
import { internals } from '../../src/testing/internals';

/** The code a promise rejects with, 'ok', or what it rejects with that is no SyncomError. */
function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(() => 'ok', (e: unknown) => ((e as { name?: string })?.name === 'SyncomError' ? (e as SyncomError).code : `raw ${String(e)}`));
}

describe('the storage API\'s failure paths: application input and close()', () => {
  it('OPS-20, GUAR-3: an actor that is no string is refused (INVALID_ARGUMENT), not logged as an op every peer refuses and the reopen reads as damage', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'actor', backend });
    const id = await s.insert({ a: 1 });
    expect(await outcome(s.update(id, { a: 2 }, { actor: 42 as unknown as string }))).toBe('INVALID_ARGUMENT');
    // Whatever reached the log is an op a peer takes.
    for (const e of internals(s).log.read(0)) expect(checkOp(e.op).ok).toBe(true);
    await s.close();
    const throwing = await open({ path: 'actor-fn', backend: 'memory', actor: () => { throw new Error('no user signed in'); } });
    expect(await outcome(throwing.insert({ a: 1 }))).toBe('INVALID_ARGUMENT');
    await throwing.close();
    const junk = await open({ path: 'actor-junk', backend: 'memory', actor: (() => ({ user: 1 })) as unknown as () => string });
    expect(await outcome(junk.insert({ a: 1 }))).toBe('INVALID_ARGUMENT');
    await junk.close();
    const again = await open({ path: 'actor', backend });
    expect(again.startupErrors).toEqual([]);
    await again.close();
  });

  it('GUAR-19: { sealed } that is not true or false is refused, not taken as unsealed (the record would replicate in clear)', async () => {
    const s = await open({ path: 'sealed-word', backend: 'memory' });
    expect(await outcome(s.insert({ pin: '1234' }, { sealed: 'true' as unknown as boolean }))).toBe('INVALID_ARGUMENT');
    expect(await outcome(s.insert({ pin: '1234' }, { get sealed(): boolean { throw new Error('unreadable'); } }))).toBe('INVALID_ARGUMENT');
    expect(await s.list()).toEqual([]);
    await s.close();
  });

  it('a wall clock (open()\'s now) that throws fails the write with INVALID_ARGUMENT, and the next write goes through', async () => {
    let broken = false;
    const s = await open({ path: 'clock', backend: 'memory', now: () => { if (broken) throw new Error('clock source down'); return 1_000_000; } });
    broken = true;
    expect(await outcome(s.insert({ a: 1 }))).toBe('INVALID_ARGUMENT');
    broken = false;
    expect(await outcome(s.insert({ a: 1 }))).toBe('ok');
    await s.close();
  });

  it('KIND-16: a class default the checks of a write refuse (a field named prototype, a value nested past 100 levels) fails the write, not the reopen', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 150; i++) deep = [deep];
    class Odd { prototype = { x: 1 }; }
    class Deep { d = deep; }
    const schema = { version: 1, types: { Odd, Deep } };
    const backend = createMemoryBackend();
    const s = await open({ path: 'defaults', backend, schema });
    expect(await outcome(s.insert({ $type: 'Odd' }))).toBe('INVALID_ARGUMENT');
    expect(await outcome(s.insert({ $type: 'Deep' }))).toBe('INVALID_ARGUMENT');
    for (const e of internals(s).log.read(0)) expect(checkOp(e.op).ok).toBe(true);
    await s.close();
    const again = await open({ path: 'defaults', backend, schema });
    expect(again.startupErrors).toEqual([]);
    await again.close();
  });

  it('GUAR-22, LIFE-24: purging a purged id again (finishing a torn scrub) is waited for by close(): nothing is written once close() resolved', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'rescrub', backend, sync: { log: { rollAfter: 2 } } });
    for (let i = 0; i < 20; i++) {
      await s.set('x', { secret: `S${i}` });
      await s.set(`y${i}`, { v: i });
    }
    s.on('error', () => undefined);
    // The first scrub fails part-way: the purge again has files to rewrite.
    backend.failAt(3, { ops: ['overwrite'] });
    await s.purge('x');
    const again = outcome(s.purge('x'));
    await s.close();
    const written = backend.opCount();
    expect(['ok', 'CLOSED']).toContain(await again);
    expect(backend.opCount()).toBe(written);
  });

  it('GUAR-22: a purge again whose scrub fails rejects with IO_ERROR, not the backend\'s own error', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'rescrub-fails', backend });
    s.on('error', () => undefined);
    await s.set('x', { secret: 'S' });
    // The first scrub fails (reported on 'error'), and so does the purge that finishes it.
    backend.failAt(1, { ops: ['overwrite'] });
    await s.purge('x');
    backend.failAt(1, { ops: ['overwrite'] });
    expect(await outcome(s.purge('x'))).toBe('IO_ERROR');
    // Again, it finishes.
    expect(await outcome(s.purge('x'))).toBe('ok');
    await s.close();
  });

  it('list() with options that are no options is refused with INVALID_ARGUMENT, not a TypeError or an empty page', async () => {
    const s = await open({ path: 'list-options', backend: 'memory' });
    await s.insert({ a: 1 });
    expect(await outcome(s.list(null as unknown as object))).toBe('INVALID_ARGUMENT');
    expect(await outcome(s.list({ limit: '10' as unknown as number }))).toBe('INVALID_ARGUMENT');
    expect(await outcome(s.list({ after: 5 as unknown as string }))).toBe('INVALID_ARGUMENT');
    expect((await s.list({ limit: 10 })).length).toBe(1);
    await s.close();
  });
});
