import { internals } from '../../src/testing/internals';
import type { OpenOptions } from '../../src';
import { hub, node } from '../sync/helpers';
import { craft, greet, push, record } from '../sync/scenario-helpers';

const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
const scoped: Partial<OpenOptions> = { sync: { scope: typed } };

describe('hostile: a writer whose scope rule differs from the host\'s', () => {
  it('SCOPE-12 SCOPE-14 SCOPE-20: with exactScopes a Note record written as global by a peer granted * is refused, so it never reaches a Doc-only feed', async () => {
    const h = await hub({ exactScopes: true }, scoped);
    const writer = await node();
    const refused = record(h.s, 'refused');
    const full = await greet(h.unit, writer, ['*']);
    const note = craft(writer, { type: 'write', id: 'n1', data: { $type: 'Note', secret: 'x' } }, '*', 1);
    const doc = craft(writer, { type: 'write', id: 'd1', data: { $type: 'Doc', title: 't' } }, 'Doc', 1);
    expect(await push(h.unit, full, [note, doc])).toMatchObject({ applied: 1, outOfScope: 1 });
    expect(refused).toEqual([{ node: writer.id, reason: 'scope', count: 1 }]);
    expect(await h.s.get('n1')).toBeUndefined();
    // Never logged, so no feed of any scope can serve it.
    expect(internals(h.s).log.read(0).map((e) => e.op.id)).toEqual(['d1']);
    await Promise.all([h.s.close(), writer.close()]);
  });

  it('SCOPE-2 SCOPE-5: exactScopes takes what a writer with the host\'s rule sends: a set, an inc and a delete in the record\'s scope, a write that moves it', async () => {
    const h = await hub({ exactScopes: true }, scoped);
    const writer = await node(scoped);
    const id = await writer.insert({ $type: 'Note', title: 'a' });
    await writer.update(id, { title: 'b' });
    await writer.inc(id, 'views', 1);
    await writer.update(id, { $type: 'Doc' });
    await writer.delete(id);
    const ops = internals(writer).log.read(0).map((e) => e.op);
    const answer = await push(h.unit, await greet(h.unit, writer, ['*']), ops);
    expect(answer).toMatchObject({ applied: ops.length, outOfScope: 0 });
    await Promise.all([h.s.close(), writer.close()]);
  });

  it('SCOPE-9: without exactScopes (the default, the spec\'s rule) a peer granted * is bound by nothing', async () => {
    const h = await hub({}, scoped);
    const writer = await node();
    const note = craft(writer, { type: 'write', id: 'n1', data: { $type: 'Note' } }, '*', 1);
    expect(await push(h.unit, await greet(h.unit, writer, ['*']), [note])).toMatchObject({ applied: 1, outOfScope: 0 });
    await Promise.all([h.s.close(), writer.close()]);
  });
});
