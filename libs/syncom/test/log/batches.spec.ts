import { internals } from '../../src/testing/internals';
import type { LogEvent } from '../../src/log';
import { SyncomError } from '../../src/errors';
import {
  fileOps, freshBackend, indexJson, logFile, openBatches, openLines, openOn, recording, segmentFiles, T0,
} from './helpers';

describe('the log: open batches, sealed segments, index.json', () => {
  it('LOG-1: every batch is appended to log/open/ before a record file holding its records is written', async () => {
    const { backend, calls } = recording(await freshBackend());
    const s = await openOn(backend, { now: () => T0 });
    await s.set('a', { title: 'one' });
    await Promise.all([s.set('b', { title: 'two' }), s.update('a', { title: 'three' })]);
    await s.inc('a', 'n', 2);
    await s.close();
    const writes = calls.filter((c) => c.op === 'write');
    const paths = writes.map((c) => c.path);
    const batches = paths.filter((p) => p.startsWith('log/open/'));
    expect(batches).toEqual(['log/open/1.json', 'log/open/2.json', 'log/open/4.json']);
    // Records follow the log: none is written before the first batch, and the batches' records (written with
    // a later batch's, docs/guarantees.md "Record files follow the log") come after the last batch.
    expect(paths.findIndex((p) => p.startsWith('records/'))).toBeGreaterThan(paths.indexOf('log/open/1.json'));
    const after = writes.slice(paths.indexOf('log/open/4.json')).filter((c) => c.path.startsWith('records/'));
    expect(after.length).toBeGreaterThan(0);
    const text = after.map((c) => c.data ?? '').join('');
    for (const v of ['"two"', '"three"']) expect(text).toContain(v);
  });

  it('LOG-1, LOG-3: writes awaited one by one make one batch each, log/open/<seq>.json', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: 'one' });
    await s.update('a', { title: 'two' });
    await s.inc('a', 'n', 1);
    await s.add('a', 'tags', ['x']);
    await internals(s).committer.idle();
    expect(openBatches(b)).toEqual([1, 2, 3, 4]);
    for (const from of [1, 2, 3, 4]) {
      const f = logFile(b, `log/open/${from}.json`);
      expect(f.from).toBe(from);
      expect(f.ops).toHaveLength(1);
    }
    expect(fileOps(b, 'log/open/3.json')[0]).toMatchObject({ type: 'inc', id: 'a', key: 'n', value: 1, seq: 3, origin: s.id });
    await s.close();
  });

  it('LOG-1, LOG-3: writes issued together share one batch file', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: 'one' });
    await Promise.all([
      s.update('a', { title: 'two' }),
      s.inc('a', 'n', 5),
      s.add('a', 'tags', ['x', 'y']),
      s.set('b', { title: 'bee' }),
    ]);
    await internals(s).committer.idle();
    expect(openBatches(b)).toEqual([1, 2]);
    const ops = fileOps(b, 'log/open/2.json');
    expect(ops.map((o) => o?.type)).toEqual(['set', 'inc', 'add', 'write']);
    expect(ops.map((o) => o?.seq)).toEqual([2, 3, 4, 5]);
    // The next batch starts after the last position of this one.
    await s.update('b', { title: 'bee2' });
    await internals(s).committer.idle();
    expect(openBatches(b)).toEqual([1, 2, 6]);
    await s.close();
  });

  it('LOG-3: a batch file is written once and its content never changes until it is sealed', async () => {
    const inner = await freshBackend();
    const rec = recording(inner);
    const s = await openOn(rec.backend, { now: () => T0, sync: { log: { rollAfter: 8 } } });
    const seen = new Map<string, string>();
    for (let i = 0; i < 7; i++) {
      await s.set(`r${i % 3}`, { title: `v${i}` });
      await internals(s).committer.idle();
      for (const from of openBatches(inner)) {
        const path = `log/open/${from}.json`;
        const text = inner.files().get(path) as string;
        if (seen.has(path)) expect(text).toBe(seen.get(path));
        else seen.set(path, text);
      }
    }
    expect(seen.size).toBe(7);
    // One write per batch file, never an overwrite, and nothing removed before the seal.
    const touches = rec.calls.filter((c) => c.path.startsWith('log/open/'));
    expect(touches.map((c) => c.op)).toEqual(Array(7).fill('write'));
    expect(new Set(touches.map((c) => c.path)).size).toBe(7);
    await s.close();
  });

  it('LOG-3: with log.lines, on a backend that appends, a batch line is written once and never changes until it is sealed: later batches only add lines', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 8, lines: true } } });
    const seen = new Map<number, string>();
    for (let i = 0; i < 7; i++) {
      await s.set(`r${i % 3}`, { title: `v${i}` });
      await internals(s).committer.idle();
      const file = b.files().get('log/open/1.json') as string;
      for (const [from, { text }] of openLines(b)) {
        if (seen.has(from)) expect(text).toBe(seen.get(from));
        else seen.set(from, text);
      }
      expect(file).toBe(`${[...seen.values()].join('\n')}\n`);
    }
    expect(seen.size).toBe(7);
    await s.close();
  });

  it('LOG-4, OPT-11: by default 64 batches are sealed into log/seg-1.json and open/ is emptied of them', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    for (let i = 0; i < 63; i++) await s.set('a', { title: `v${i}` });
    await internals(s).committer.idle();
    expect(segmentFiles(b)).toEqual([]);
    expect(openBatches(b)).toHaveLength(63);
    await s.set('a', { title: 'v63' });
    await internals(s).committer.idle();
    expect(segmentFiles(b)).toEqual([1]);
    expect(openBatches(b)).toEqual([]);
    const seg = fileOps(b, 'log/seg-1.json');
    expect(seg).toHaveLength(64);
    expect(seg.map((o) => o?.seq)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    await s.set('a', { title: 'v64' });
    await internals(s).committer.idle();
    expect(openBatches(b)).toEqual([65]);
    await s.close();
  });

  it('LOG-4: every rollAfter batches open/ rolls into seg-<from>.json (batches of several ops)', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 3 } } });
    // Batches of 2 ops: positions 1-2, 3-4, 5-6 -> seg-1; 7-8, 9-10, 11-12 -> seg-7.
    for (let i = 0; i < 7; i++) {
      await Promise.all([s.set('a', { title: `a${i}` }), s.set('b', { title: `b${i}` })]);
      await internals(s).committer.idle();
    }
    expect(segmentFiles(b)).toEqual([1, 7]);
    expect(openBatches(b)).toEqual([13]);
    expect(logFile(b, 'log/seg-1.json').ops).toHaveLength(6);
    expect(logFile(b, 'log/seg-7.json')).toMatchObject({ from: 7 });
    expect(fileOps(b, 'log/seg-7.json').map((o) => o?.seq)).toEqual([7, 8, 9, 10, 11, 12]);
    await s.close();
  });

  it('LOG-4: with log.segmentOps a segment also ends at the batch that takes it to that many ops (what a purge rewrites stays bounded)', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 64, segmentOps: 5 } } });
    // Batches of 2 ops: 1-2, 3-4, 5-6 reach 5 ops -> seg-1; 7-8, 9-10, 11-12 -> seg-7; 13-14 waits.
    for (let i = 0; i < 7; i++) {
      await Promise.all([s.set('a', { title: `a${i}` }), s.set('b', { title: `b${i}` })]);
      await internals(s).committer.idle();
    }
    expect(segmentFiles(b)).toEqual([1, 7]);
    expect(openBatches(b)).toEqual([13]);
    // One batch past segmentOps is a segment of its own.
    await Promise.all(Array.from({ length: 9 }, (_, i) => s.set(`c${i}`, { title: 'c' })));
    await internals(s).committer.idle();
    expect(segmentFiles(b)).toEqual([1, 7, 13]);
    expect(logFile(b, 'log/seg-13.json').ops.length).toBeGreaterThanOrEqual(5);
    await s.close();
  });

  it("LIFE-16: the storage 'log' event { kind, sealed, dropped, floor, segments } fires on a seal", async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 2 } } });
    const events: LogEvent[] = [];
    s.on('log', (e) => events.push(e));
    await s.set('a', { title: '1' });
    await internals(s).committer.idle();
    expect(events).toEqual([]);
    await s.set('a', { title: '2' });
    await internals(s).committer.idle();
    expect(events).toEqual([{ kind: 'seal', sealed: { from: 1, to: 2 }, dropped: [], floor: 0, segments: 1 }]);
    await s.set('a', { title: '3' });
    await s.set('a', { title: '4' });
    await internals(s).committer.idle();
    expect(events[1]).toEqual({ kind: 'seal', sealed: { from: 3, to: 4 }, dropped: [], floor: 0, segments: 2 });
    await s.close();
  });

  it('LOG-5: index.json holds { epoch, floor, vector, segments }', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 2 } } });
    const fresh = indexJson(b);
    expect(fresh).toMatchObject({ epoch: internals(s).log.epoch, floor: 0, vector: {}, segments: [] });
    await s.set('a', { title: '1' });
    await s.inc('a', 'n', 1);
    await internals(s).committer.idle();
    const index = indexJson(b);
    expect(Object.keys(index)).toEqual(expect.arrayContaining(['epoch', 'floor', 'vector', 'segments']));
    expect(index.epoch).toBe(internals(s).log.epoch);
    expect(typeof index.epoch).toBe('string');
    expect(index.floor).toBe(0);
    expect(index.vector).toEqual({ [s.id]: 2 });
    expect(index.segments).toEqual([expect.objectContaining({ from: 1, to: 2 })]);
    await s.close();
  });

  it('LIFE-24: close() seals the log: open/ is empty after close once records are written', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: '1' });
    await Promise.all([s.update('a', { title: '2' }), s.inc('a', 'n', 3)]);
    await s.add('a', 'tags', ['x']);
    await internals(s).committer.idle();
    expect(openBatches(b)).toEqual([1, 2, 4]);
    expect(segmentFiles(b)).toEqual([]);
    await s.close();
    expect(openBatches(b)).toEqual([]);
    expect(segmentFiles(b)).toEqual([1]);
    expect(fileOps(b, 'log/seg-1.json').map((o) => o?.type)).toEqual(['write', 'set', 'inc', 'add']);
    expect(indexJson(b)).toMatchObject({ vector: { [s.id]: 4 }, segments: [expect.objectContaining({ from: 1, to: 4 })] });
    // And the sealed log reopens to the same records.
    const s2 = await openOn(b.crash('none'), { now: () => T0 });
    expect(await s2.get('a')).toEqual({ title: '2', n: 3, tags: ['x'] });
    await s2.close();
  });

  it('LIFE-24, GUAR-8: close() after a reopen that replayed an unsealed tail writes its records and seals it', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: '1' });
    await s.inc('a', 'n', 2);
    await internals(s).committer.idle();
    // The process dies before close(): two batches in open/.
    const b2 = b.crash('none');
    expect(openBatches(b2)).toEqual([1, 2]);
    const s2 = await openOn(b2, { now: () => T0 });
    expect(await s2.get('a')).toEqual({ title: '1', n: 2 });
    await s2.close();
    expect(openBatches(b2)).toEqual([]);
    expect(segmentFiles(b2)).toEqual([1]);
    const s3 = await openOn(b2.crash('none'), { now: () => T0 });
    expect(await s3.get('a')).toEqual({ title: '1', n: 2 });
    await s3.close();
  });

  it('LIFE-25: a write after close() was called rejects with code CLOSED, at once', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: '1' });
    const closing = s.close();
    await expect(s.update('a', { title: '2' })).rejects.toMatchObject({ code: 'CLOSED' });
    await closing;
    const calls: Promise<unknown>[] = [
      s.set('a', { title: 'x' }), s.insert({ title: 'y' }), s.update('a', { title: 'z' }), s.inc('a', 'n', 1),
      s.add('a', 'tags', ['t']), s.remove('a', 'tags', ['t']), s.delete('a'), s.purge('a'),
    ];
    for (const p of calls) {
      await expect(p).rejects.toBeInstanceOf(SyncomError);
      await expect(p).rejects.toMatchObject({ code: 'CLOSED' });
    }
    // Nothing more reached the log.
    const s2 = await openOn(b.crash('none'), { now: () => T0 });
    expect(internals(s2).log.head).toBe(1);
    expect(await s2.get('a')).toEqual({ title: '1' });
    await s2.close();
  });
});
