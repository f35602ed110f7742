import { internals } from '../../src/testing/internals';
import type { SyncomError } from '../../src/errors';
import type { MemoryBackend } from '../../src/backend';
import { FLAG_SEALED } from '../../src/op';
import { freshBackend, indexJson, logFile, openBatches, openOn, segmentFiles, T0 } from '../log/helpers';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { MARK } from './helpers';

/** Files of a memory backend that hold the text. */
const holding = (b: MemoryBackend, text: string) => [...b.files()].filter(([, c]) => c.includes(text)).map(([p]) => p);

describe('sealed records in the log', () => {
  it('GUAR-19: a sealed entry is written as 19 slots, header and flags in clear, payload and signature boxed', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('x', { title: MARK }, { sealed: true });
    await internals(s).committer.idle();
    const [packed] = logFile(b, 'log/open/1.json').ops as unknown[][];
    expect(packed).toHaveLength(19);
    expect(packed.slice(0, 9)).toEqual([s.id, 1, T0, 'write', 'x', '*', null, null, null]);
    expect(packed[14]).toBe(FLAG_SEALED);
    expect([9, 10, 11, 12, 13, 15, 16, 17].map((i) => packed[i])).toEqual(Array(8).fill(null));
    expect(packed[18]).toMatch(/^1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(holding(b, MARK)).toEqual([]);
    await s.close();
  });

  it('GUAR-19 GUAR-7: a crash after a sealed append replays the decrypted tail on open; still nothing in clear', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: 'kept' }, { sealed: true });
    await internals(s).committer.idle();
    b.crashAt(2);
    await s.update('a', { title: `${MARK}-logged` });
    await internals(s).committer.idle();
    const b2 = b.crash('none');
    expect(openBatches(b2)).toEqual([1, 2]);
    const s2 = await openOn(b2, { now: () => T0 });
    expect(await s2.get('a')).toEqual({ title: `${MARK}-logged` });
    expect(s2.isSealed('a')).toBe(true);
    await s2.close();
    expect(holding(b2, MARK)).toEqual([]);
  });

  it('GUAR-19: a box that was tampered with reads as OP_UNREADABLE, never as an op with an empty payload', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 100 } } });
    await s.set('a', { title: 'one' }, { sealed: true });
    await s.set('b', { title: 'two' }, { sealed: true });
    await s.close();
    // Move b's box onto a's entry: it is bound to b's header, so it does not open there.
    const file = logFile(b, 'log/seg-1.json');
    (file.ops[0] as unknown[])[18] = (file.ops[1] as unknown[])[18];
    await b.overwrite('log/seg-1.json', JSON.stringify(file));
    const errors: SyncomError[] = [];
    const s2 = await openOn(b, { now: () => T0 });
    s2.on('error', (e) => errors.push(e));
    // open() reports startup errors on a setImmediate it queued before returning: one turn later they are in.
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((e) => e.code)).toEqual(['OP_UNREADABLE']);
    expect(internals(s2).log.read(0).map((e) => e.op.id)).toEqual(['b']);
    await s2.close();
  });

  it('GUAR-19 LOG-13 LOG-16: retention drops segments of sealed ops though a host is registered; the sealed seq survives them in index.json', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    const b = await freshBackend();
    const options = { backend: b, sync: { retention: { ops: 1000 }, log: { rollAfter: 2 } } };
    let d = await dialer(net, options);
    const acked = (n: number) => until(() => d.sync.listNodes()[0]?.acked[d.id] === n, [d, h.s]);
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await d.insert({ plain: 0 });
    await acked(1);
    for (let i = 0; i < 12; i++) await Promise.all(Array.from({ length: 100 }, () => d.insert({ secret: MARK }, { sealed: true })));
    await internals(d).committer.idle();
    // No host waits for a sealed op: the segments before them go (LOG-16 pins only what a host lacks).
    expect(internals(d).log.floor).toBeGreaterThan(0);
    expect(internals(d).log.sealedSeq).toBe(1200);
    for (let i = 0; i < 11; i++) await Promise.all(Array.from({ length: 100 }, (_, j) => d.insert({ plain: i * 100 + j })));
    await acked(1101);
    for (let i = 0; i < 2; i++) await d.insert({ last: i });
    await internals(d).committer.idle();
    expect(internals(d).log.read(internals(d).log.floor).some((e) => e.flags & FLAG_SEALED)).toBe(false);
    expect(indexJson(b).sealedSeq).toBe(1200);
    expect(Math.max(...Object.values(indexJson(b).vector as Record<string, number>))).toBeLessThan(1200);
    await d.close();
    d = await dialer(net, options);
    await d.set('next', { secret: MARK }, { sealed: true });
    expect(internals(d).log.read(0).at(-1)?.op.seq).toBe(1201);
    expect(holding(b, MARK)).toEqual([]);
    await closeAll(d, h.s);
  });
});
