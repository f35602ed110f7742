import { ArrayMaxSize, IsOptional, IsString, Validate } from 'class-validator';
import { counted, Counted } from './counted';
import type { Storage } from '../../src';
import { errors, logOps, node, ship } from '../storage/helpers';

/**
 * A type change is judged as a whole record of the new type (docs/api.md,
 * `schema`), which costs the record's size. A token holder that once built a
 * large set in a record (adds are not validated) could flip its `$type`
 * between two classes op after op, and each flip had the host validate every
 * element again: 20 flips of a record holding a checked set of 100,000
 * elements took 8.3 s of a host's CPU (docs/security.md). The verdict of a
 * type change is now kept for the record's field states, so a flip back to a
 * state judged before costs the record's fields, not its elements. Counted
 * here: the calls of a constraint that checks each element.
 */
class Tagged {
  @IsOptional() @Validate(Counted, { each: true }) tags?: string[];
}

class Labelled {
  @IsOptional() @Validate(Counted, { each: true }) tags?: string[];
  @IsOptional() @IsString() label?: string;
}

class Capped {
  @IsOptional() @ArrayMaxSize(10) @Validate(Counted, { each: true }) tags?: string[];
}

const schema = { version: 1, types: { Tagged, Labelled, Capped } };
const SIZE = 2_000;
const FLIPS = 20;
const elements = Array.from({ length: SIZE }, (_, i) => `e${i}`);

/** The constraint calls `run` makes. */
async function visitsOf<T>(run: () => Promise<T>): Promise<{ value: T; visits: number }> {
  counted.visits = 0;
  const value = await run();
  return { value, visits: counted.visits };
}

/** A writer without a schema that made record `r` a Tagged holding SIZE elements, then flipped it FLIPS times. */
async function flippingWriter(): Promise<Storage> {
  const { s } = await node(1_000);
  await s.set('r', { $type: 'Tagged' });
  await s.add('r', 'tags', elements);
  for (let i = 0; i < FLIPS; i++) await s.update('r', { $type: i % 2 === 0 ? 'Labelled' : 'Tagged' });
  return s;
}

describe('schema: the cost of changing a record\'s type', () => {
  it(`GUAR-3: a peer's ${FLIPS} type flips of a record holding ${SIZE} checked elements validate them at most twice, and all land`, async () => {
    const writer = await flippingWriter();
    const host = await node(2_000, { schema });
    const { value: res, visits: n } = await visitsOf(() => ship(writer, host.s));
    expect(res).toMatchObject({ applied: FLIPS + 2, skipped: 0 });
    // One judgement per class the record becomes; every later flip finds the record's state judged before.
    expect(n).toBeLessThanOrEqual(2 * SIZE);
    expect(await host.s.get('r')).toMatchObject({ $type: 'Tagged' });
    expect(((await host.s.get('r'))?.tags as string[]).length).toBe(SIZE);
  });

  it(`GUAR-3: ${FLIPS} local type changes by update() validate the set at most twice`, async () => {
    const { s } = await node(1_000, { schema });
    const id = await s.insert({ $type: 'Tagged' });
    await s.add(id, 'tags', elements);
    const { visits: n } = await visitsOf(async () => {
      for (let i = 0; i < FLIPS; i++) await s.update(id, { $type: i % 2 === 0 ? 'Labelled' : 'Tagged' });
    });
    expect(n).toBeLessThanOrEqual(2 * SIZE);
    expect(await s.get(id)).toMatchObject({ $type: 'Tagged' });
  });

  it('a kept verdict is for one state of the record: an element added since, or a field the update sets, is judged anew', async () => {
    const { s } = await node(1_000, { schema });
    const id = await s.insert({ $type: 'Tagged' });
    await s.add(id, 'tags', ['a', 'b']);
    await s.update(id, { $type: 'Labelled' });
    await s.update(id, { $type: 'Tagged' });
    // An element Labelled refuses, added without a check (an add is not validated): the flip back is refused now.
    await s.add(id, 'tags', [5]);
    await expect(s.update(id, { $type: 'Labelled' })).rejects.toMatchObject({ code: 'OP_INVALID', message: expect.stringContaining('tags: counted failed') });
    await s.remove(id, 'tags', [5]);
    await s.update(id, { $type: 'Labelled' });
    // The same state with a field the new type refuses in the update itself.
    await s.update(id, { $type: 'Tagged' });
    await expect(s.update(id, { $type: 'Labelled', label: 7 })).rejects.toMatchObject({ code: 'OP_INVALID', message: expect.stringContaining('label must be a string') });
    await s.update(id, { $type: 'Labelled', label: 'ok' });
    expect(await s.get(id)).toMatchObject({ $type: 'Labelled', label: 'ok', tags: ['a', 'b'] });
  });

  it(`a refused type change keeps its refusal: ${FLIPS} pushes of it validate the set once, each refused with the same errors`, async () => {
    const { s: writer } = await node(1_000);
    await writer.set('r', { $type: 'Tagged' });
    await writer.add('r', 'tags', elements);
    const host = await node(2_000, { schema });
    const seen = errors(host.s);
    await ship(writer, host.s);
    // Each flip to Capped in its own stream position, as a peer keeps trying; the record stays a Tagged.
    const { visits: n } = await visitsOf(async () => {
      for (let i = 0; i < FLIPS; i++) {
        const before = logOps(writer).length;
        await writer.update('r', { $type: 'Capped' });
        await writer.update('r', { $type: 'Tagged' });
        expect(await ship(writer, host.s, logOps(writer).slice(before))).toMatchObject({ skipped: 1 });
      }
    });
    expect(n).toBeLessThanOrEqual(SIZE);
    const invalid = seen.filter((e) => e.code === 'OP_INVALID').map((e) => (e as unknown as Error).message);
    expect(invalid).toHaveLength(FLIPS);
    expect(invalid[0]).toContain('tags must contain no more than 10 elements');
    expect(invalid.every((m) => m === invalid[0])).toBe(true);
    expect(await host.s.get('r')).toMatchObject({ $type: 'Tagged' });
  });
});
