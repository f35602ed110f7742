import { type Op, scopeByField } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';
import { greet, push } from '../sync/scenario-helpers';

/**
 * What a scope function is handed: the record's fields, with a null
 * prototype, whatever the record was before the op (new, live or deleted)
 * and whoever reads it (the write's own op, the commit's rescope, a host
 * judging a peer's op). An object inheriting from Object.prototype for a
 * new record, beside a null-prototype view for a live one, made a function
 * reading `data.toString`, or asking `in`, place one record in two scopes:
 * the op declared one, the commit's rescope (a null-prototype view) gave
 * the other, and a host judging the op by its own view refused it.
 */

/** A scope function noting each view's prototype; its scope tells a field it was handed from Object.prototype's member. */
function watched() {
  const protos: unknown[] = [];
  const scope = (_id: string, data: Record<string, unknown>) => {
    protos.push(Object.getPrototypeOf(data));
    const has = (name: string) => name in data;
    return has('toString') || typeof data.valueOf === 'function' ? 'inherited' : typeof data.team === 'string' ? data.team : '*';
  };
  return { protos, scope };
}

/** The scope the newest op of `id` in the log declares. */
const declared = (s: Parameters<typeof internals>[0], id: string) =>
  internals(s).log.read(0).map((e) => e.op as Op).filter((op) => op.id === id).at(-1)?.scope;

describe('the record a scope function is handed', () => {
  it('SCOPE-4 SCOPE-5 SCOPE-6: a null-prototype view for a new record (insert, set), a live one (set, update) and a deleted one brought back alike', async () => {
    const { protos, scope } = watched();
    const s = await node({ sync: { scope } });
    const id = await s.insert({ team: 'a' });
    await s.set('fresh', { team: 'b' });
    await s.set(id, { team: 'c' });
    await s.update(id, { n: 1 });
    await s.delete(id);
    await s.set(id, { team: 'd' });
    await s.set('x', { toString: 'a field', team: 'e' });
    expect(protos.length).toBeGreaterThanOrEqual(7);
    expect(protos.filter((p) => p !== null)).toEqual([]);
    expect([s.scopeOf(id), s.scopeOf('fresh'), s.scopeOf('x')]).toEqual(['d', 'b', 'inherited']);
    expect([declared(s, id), declared(s, 'fresh')]).toEqual(['d', 'b']);
    await closeAll(s);
  });

  it('SCOPE-17: a host with the same scope function takes a new record\'s op in the scope it declared', async () => {
    const { scope } = watched();
    const h = await hub({ exactScopes: true }, { sync: { scope } });
    const d = await node({ sync: { scope } });
    await d.set('r', { team: 'a' });
    const ops = internals(d).log.read(0).map((e) => e.op as Op).filter((op) => op.id === 'r');
    const ctx = await greet(h.unit, d, ['a']);
    expect(await push(h.unit, ctx, ops)).toMatchObject({ applied: 1, outOfScope: 0 });
    await closeAll(d, h.s);
  });

  it('SCOPE-4 SCOPE-5 SCOPE-6: scopeByField reads a register of the field (an update\'s own value first) and takes a set or a counter there for the global scope, as a read of the field whole did', async () => {
    const s = await node({ sync: { scope: scopeByField('$type') } });
    await s.set('r', { $type: 'Doc', n: 1 });
    expect([internals(s).scopes.scopeOf('r'), declared(s, 'r')]).toEqual(['Doc', 'Doc']);
    await s.update('r', { $type: 'Note' });
    expect([internals(s).scopes.scopeOf('r'), declared(s, 'r')]).toEqual(['Note', 'Note']);
    await s.update('r', { n: 2 });
    expect([internals(s).scopes.scopeOf('r'), declared(s, 'r')]).toEqual(['Note', 'Note']);
    await s.set('set', {});
    await s.set('counter', {});
    await s.add('set', '$type', ['Doc']);
    await s.inc('counter', '$type', 1);
    await s.add('set', 'tags', ['x']);
    for (const id of ['set', 'counter']) expect([internals(s).scopes.scopeOf(id), declared(s, id)]).toEqual(['*', '*']);
    await s.close();
  });
});
