import type { OpenOptions } from '../../src';
import { joinPage } from '../../src/sync/dial/bootstrap';
import { closeAll, hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

/**
 * A tombstone's scope rides beside it in a snapshot page's or a records
 * answer's `removedScopes`, keyed by the record's id (docs/security.md, A
 * token holder). Any string is an id, `__proto__` included: an answer built
 * by assignment into a plain object dropped that one, and a node joining the
 * tombstone placed it in '*', where peers of every scope are served it. And
 * it names only scopes the asking peer may read: a purge marker is served to
 * any peer naming its id, and its scope had come with it.
 */

const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
const scoped: Partial<OpenOptions> = { sync: { scope: typed } };
const ODD = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];

describe('hostile: record ids named like Object.prototype members in removedScopes', () => {
  it('SCOPE-20 RECON: a records answer names the scope of a tombstone whose id is __proto__, and a node joining it places it there', async () => {
    const h = await hub({}, scoped);
    for (const id of ODD) {
      await h.s.set(id, { $type: 'B', title: id });
      await h.s.delete(id);
    }
    const fetcher = await node();
    const answer = (await h.unit.call('records', { scope: '*', ids: ODD }, await greet(h.unit, fetcher, ['*']))) as { entries: unknown[]; removedScopes?: Record<string, string> };
    expect(answer.entries).toHaveLength(ODD.length);
    expect(Object.keys(answer.removedScopes ?? {}).sort()).toEqual([...ODD].sort());
    expect(JSON.parse(JSON.stringify(answer.removedScopes))).toEqual(Object.fromEntries(ODD.map((id) => [id, 'B'])));
    const joiner = await node(scoped);
    await Promise.all(joinPage(joiner.replica, answer.entries, h.s.id, { url: 'memory://h', node: h.s.id }, { removedScopes: answer.removedScopes }));
    expect(ODD.map((id) => joiner.replica.scopeOf(id))).toEqual(ODD.map(() => 'B'));
    await closeAll(h.s, fetcher, joiner);
  });

  it('SCOPE-20 BOOT-2: a snapshot page of scope B names the scope of the tombstone __proto__; an A peer of a node bootstrapped from it is not served it', async () => {
    const h = await hub({}, scoped);
    await h.s.set('__proto__', { $type: 'B', title: 'gone' });
    await h.s.delete('__proto__');
    const peer = await node();
    const page = (await h.unit.call('snapshot', { scopes: ['B'] }, await greet(h.unit, peer, ['B']))) as { entries: { id: string }[]; removedScopes?: Record<string, string> };
    expect(page.entries.map((e) => e.id)).toEqual(['__proto__']);
    expect(Object.hasOwn(page.removedScopes ?? {}, '__proto__')).toBe(true);
    const relay = await hub({}, scoped);
    await Promise.all(joinPage(relay.s.replica, page.entries, h.s.id, { url: 'memory://h', node: h.s.id }, { removedScopes: page.removedScopes }));
    const a = await node();
    const served = (await relay.unit.call('snapshot', { scopes: ['A'] }, await greet(relay.unit, a, ['A']))) as { entries: { id: string }[] };
    expect(served.entries.map((e) => e.id)).toEqual([]);
    await closeAll(h.s, peer, relay.s, a);
  });

  it('SCOPE-20 OPS-10: a records answer serves a peer of scope A the purge marker of a Payroll record it names, without naming Payroll', async () => {
    const h = await hub({}, scoped);
    const mine = await h.s.insert({ $type: 'A', title: 'mine' });
    await h.s.purge(mine);
    const theirs = await h.s.insert({ $type: 'Payroll', title: 'salary' });
    await h.s.purge(theirs);
    const peer = await node();
    const answer = (await h.unit.call('records', { scope: 'A', ids: [mine, theirs] }, await greet(h.unit, peer, ['A']))) as { entries: { id: string; purged?: unknown }[]; removedScopes?: Record<string, string> };
    expect(answer.entries.map((e) => [e.id, e.purged !== undefined])).toEqual([[mine, true], [theirs, true]]);
    expect(answer.removedScopes).toEqual({ [mine]: 'A' });
    expect(JSON.stringify(answer)).not.toContain('Payroll');
    await closeAll(h.s, peer);
  });
});
