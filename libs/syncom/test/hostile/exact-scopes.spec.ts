import { internals } from '../../src/testing/internals';
import type { OpenOptions } from '../../src';
import { hub, node } from '../sync/helpers';
import { craft, greet, opsOf, push, record } from '../sync/scenario-helpers';

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
  it('SCOPE-14 OPS-11 SCOPE-19: with exactScopes a record made and purged before its first push reaches the host, and the writer\'s later ops of its scope land', async () => {
    const h = await hub({ exactScopes: true }, scoped);
    const writer = await node(scoped);
    const gone = await writer.insert({ $type: 'Note', t: 'x' });
    await writer.purge(gone);
    const kept = await writer.insert({ $type: 'Note', t: 'y' });
    const refused = record(h.s, 'refused');
    // The purge scrubbed the write out of the writer's log: the host never learns which scope the record was in.
    const answer = await push(h.unit, await greet(h.unit, writer, ['Note']), opsOf(writer));
    expect(answer).toMatchObject({ applied: 3, outOfScope: 0, gaps: 0 });
    expect(refused).toEqual([]);
    expect(await h.s.get(kept)).toEqual({ $type: 'Note', t: 'y' });
    expect(internals(h.s).committer.current(gone)?.purged).toBeTruthy();
    await Promise.all([h.s.close(), writer.close()]);
  });

  it('SCOPE-19 OPS-10: with exactScopes a purge of an id the host never held, by a peer of another scope, does not stop a Note writer\'s stream there', async () => {
    const h = await hub({ exactScopes: true }, scoped);
    const [other, writer] = await Promise.all([node(scoped), node(scoped)]);
    const early = craft(other, { type: 'purge', id: 'invoice-1' }, '*', 1);
    expect(await push(h.unit, await greet(h.unit, other, ['Doc']), [early])).toMatchObject({ applied: 1 });
    await writer.set('invoice-1', { $type: 'Note', amount: 5 });
    await writer.set('invoice-2', { $type: 'Note', amount: 6 });
    const answer = await push(h.unit, await greet(h.unit, writer, ['Note']), opsOf(writer));
    // The purged id takes nothing (OPS-10), but the op is no scope breach: the writer's stream goes on.
    expect(answer).toMatchObject({ applied: 1, outOfScope: 0, gaps: 0 });
    expect(await h.s.get('invoice-1')).toBeUndefined();
    expect(await h.s.get('invoice-2')).toEqual({ $type: 'Note', amount: 6 });
    // Logged scrubbed: the record's fields go nowhere from here.
    const logged = opsOf(h.s).filter((o) => o.id === 'invoice-1' && o.origin === writer.id);
    expect(logged.map((o) => [o.scope, o.data])).toEqual([['Note', undefined]]);
    await Promise.all([h.s.close(), other.close(), writer.close()]);
  });
});
