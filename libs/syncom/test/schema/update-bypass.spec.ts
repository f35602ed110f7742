import { applyPeerOps } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { node } from '../storage/helpers';
import { Note } from './fixtures';

/**
 * An update is judged by the fields it sets, under the record's type
 * (docs/api.md), but never so that the store ends up holding a record its
 * schema refuses: a field set to null is checked as any value (only
 * @IsOptional lets it pass), and an update that changes the record's type is
 * judged as a whole record of the new type. A type change to a type with no
 * class, fields the old type refuses, then a change back, left a Note with
 * title 5 and rank -1; an update of title to null passed.
 */
const schema = { version: 1, types: { Note } };

describe('an update cannot leave a record its schema refuses', () => {
  it('update() of a required field to null is OP_INVALID; of an optional one it passes', async () => {
    const { s } = await node(1, { schema });
    const id = await s.insert({ $type: 'Note', title: 'x' });
    await expect(s.update(id, { title: null })).rejects.toMatchObject({ code: 'OP_INVALID', message: expect.stringContaining('title must be a string') });
    await s.update(id, { rank: null });
    expect(await s.get(id)).toMatchObject({ title: 'x', rank: null });
  });

  it('a type change is judged as a whole record of the new type: the round trip through a type with no class is refused at its way back', async () => {
    const { s } = await node(1, { schema });
    const id = await s.insert({ $type: 'Note', title: 'x' });
    await s.update(id, { $type: 'Scratch' });
    await s.update(id, { title: 5, rank: -1 });
    await expect(s.update(id, { $type: 'Note' })).rejects.toMatchObject({ code: 'OP_INVALID', message: expect.stringMatching(/title must be a string.*rank must not be less than 0/) });
    expect(await s.get(id)).toMatchObject({ $type: 'Scratch', title: 5 });
    // A change that makes a whole, valid Note passes.
    await s.update(id, { $type: 'Note', title: 'fine', rank: 1 });
    expect(await s.get(id)).toMatchObject({ $type: 'Note', title: 'fine', rank: 1 });
  });

  it("a peer's set that changes the type back over fields the type refuses is refused here (OP_INVALID, skipped)", async () => {
    const writer = await node(1);
    const { s } = await node(2, { schema });
    await writer.s.set('r', { $type: 'Scratch', title: 5 });
    await writer.s.update('r', { $type: 'Note' });
    const ops = internals(writer.s).log.read(0).map((e) => e.op);
    const res = await applyPeerOps(s, ops, { via: { url: 'memory://peer', node: writer.s.id } });
    expect(res.skipped).toBe(1);
    expect(await s.get('r')).toMatchObject({ $type: 'Scratch', title: 5 });
  });
});
