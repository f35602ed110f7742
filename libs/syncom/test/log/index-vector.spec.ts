import { createMemoryBackend, open } from '../../src';
import type { OpenOptions } from '../../src/storage/options';
import { afterEdit, INDEX, store } from './index-edits';

/**
 * log/index.json carries no checksum, and its vector was taken as it read.
 * One digit rotted there (the JSON still valid) was not noticed by open()
 * nor by `syncom verify`, and split the node from its peers: a count of its
 * own stream raised made the next own write a gap no peer can fill (every
 * later write never reached the hub). The vector is checked against what
 * the sealed log holds: a count it shows otherwise is reported, and the
 * log's taken.
 */

describe('LOG-5: log/index.json whose vector rotted, the JSON still valid', () => {
  it("its own stream's count raised (2 -> 9) past what the log holds: reported or refused, never a gap in the node's own stream", async () => {
    const { backend, id } = await store();
    const r = await afterEdit(backend, (index) => { index.vector[id] = 9; });
    if ('refused' in r) return expect(r.refused).toMatchObject({ code: 'STORE_DAMAGED', file: INDEX });
    expect(r.seen).toContainEqual(expect.objectContaining({ code: 'OP_UNREADABLE', file: INDEX }));
    expect(r.op.seq).toBe(3);
    expect(r.index[id]).toBe(3);
  });

  it("its own stream's count lowered (2 -> 1): reported, and the next own write does not sign seq 2 again", async () => {
    const { backend, id } = await store();
    const r = await afterEdit(backend, (index) => { index.vector[id] = 1; });
    if ('refused' in r) throw r.refused;
    expect(r.seen).toContainEqual(expect.objectContaining({ code: 'OP_UNREADABLE', file: INDEX }));
    expect(r.op.seq).toBe(3);
  });

  it('a count of a stream no op of the log holds (a rotted key, or a count for no peer): reported and dropped, other counts kept', async () => {
    const { backend, id } = await store();
    const ghost = `${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`;
    const r = await afterEdit(backend, (index) => { index.vector[ghost] = 5; });
    if ('refused' in r) throw r.refused;
    expect(r.seen).toContainEqual(expect.objectContaining({ code: 'OP_UNREADABLE', file: INDEX }));
    expect(r.vector).toEqual({ [id]: 3 });
  });

  it('an index.json as the log wrote it is not reported: after a clean close, and once retention raised the floor', async () => {
    const { backend, id } = await store();
    const clean = await afterEdit(backend, () => undefined);
    if ('refused' in clean) throw clean.refused;
    expect(clean.seen).toEqual([]);
    expect(clean.op.seq).toBe(3);

    const b = createMemoryBackend();
    const options = { sync: { log: { rollAfter: 2 }, retention: { ops: 1000 } } } as Partial<OpenOptions>;
    const s = await open({ ...options, path: 's', backend: b });
    for (let round = 0; round < 12; round++) await Promise.all(Array.from({ length: 100 }, (_, i) => s.insert({ round, i })));
    await s.close();
    const floor = (JSON.parse((await b.read(INDEX)) as string) as { floor: number }).floor;
    expect(floor).toBeGreaterThan(0);
    const kept = await afterEdit(b, () => undefined, options);
    if ('refused' in kept) throw kept.refused;
    expect(kept.seen).toEqual([]);
    expect(kept.op.seq).toBe(1201);
    const rotted = await afterEdit(b, (index) => { index.vector[s.id] = 1300; }, options);
    if ('refused' in rotted) throw rotted.refused;
    expect(rotted.seen).toContainEqual(expect.objectContaining({ code: 'OP_UNREADABLE', file: INDEX }));
    expect(rotted.op.seq).toBe(1202);
    expect(id).not.toBe(s.id);
  });
});
