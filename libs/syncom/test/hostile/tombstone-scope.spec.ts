import type { OpenOptions, Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { craft, greet, opsOf, push, record, reopen } from '../sync/scenario-helpers';
import { joinPage } from '../../src/sync/dial/bootstrap';

/**
 * A deleted or purged record keeps the scope it was in (docs/security.md, A
 * token holder: it cannot read beyond its scopes). Its tombstone or purge
 * marker carries no field, so the scope function cannot place it again: the
 * scope it had must come from what placed it. Placed in '*', it is served to
 * a peer of every scope, its id, when it went and which node removed it.
 */

const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
const scoped: Partial<OpenOptions> = { sync: { scope: typed } };

/** The ids the first snapshot page of a peer greeted for `scopes` serves, and its total. */
async function served(unit: HostUnit, scopes: string[]): Promise<{ ids: string[]; total: number }> {
  const peer = await node();
  const page = (await unit.call('snapshot', { scopes }, await greet(unit, peer, scopes))) as { entries: { id: string }[]; total: number };
  await peer.close();
  return { ids: page.entries.map((e) => e.id), total: page.total };
}

/** A record of scope B deleted and another purged, on `s`. */
async function removedOfB(s: Storage): Promise<{ deleted: string; purged: string }> {
  const deleted = await s.insert({ $type: 'B', title: 'deleted' });
  await s.delete(deleted);
  const purged = await s.insert({ $type: 'B', title: 'purged' });
  await s.purge(purged);
  return { deleted, purged };
}

describe('hostile: a scope A peer and scope B\'s deleted and purged records', () => {
  it('SCOPE-20: after the host reopens, B\'s tombstone and purge marker are still B\'s: an A peer\'s snapshot holds neither, and it may not revive the tombstone', async () => {
    const h = await hub({}, scoped);
    const { deleted, purged } = await removedOfB(h.s);
    const mine = await h.s.insert({ $type: 'A', title: 'mine' });
    expect(await served(h.unit, ['A'])).toEqual({ ids: [mine], total: 1 });
    await h.s.close();

    const again = await reopen(h.s, scoped);
    const unit = again.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' });
    expect(await served(unit, ['A'])).toEqual({ ids: [mine], total: 1 });
    expect((await served(unit, ['B'])).ids.sort()).toEqual([deleted, purged].sort());
    // The boundary reads the same scope: a write of A's bringing B's deleted record back is refused.
    const writer = await node();
    const revive = craft(writer, { type: 'write', id: deleted, data: { $type: 'A', title: 'revived' } }, 'A', 1);
    expect(await push(unit, await greet(unit, writer, ['A']), [revive])).toMatchObject({ applied: 0, outOfScope: 1 });
    await Promise.all([again.close(), writer.close()]);
  });

  it('SCOPE-20: retention dropped the delete and the purge before the host reopened: B\'s tombstone and purge marker are still B\'s, in snapshots, records answers and the boundary', async () => {
    let t = Date.UTC(2026, 0, 1);
    const clock = { now: () => t };
    // A segment a batch: the seal after two days drops every segment of the first day.
    const h = await hub({}, { ...clock, sync: { scope: typed, retention: { days: 1 }, log: { rollAfter: 1 } } });
    const { deleted, purged } = await removedOfB(h.s);
    t += 2 * 86_400_000;
    const mine = await h.s.insert({ $type: 'A', title: 'mine' });
    await h.s.close();
    const again = await reopen(h.s, scoped);
    expect(again.replica.floor).toBeGreaterThan(0);
    expect(opsOf(again).filter((o) => o.id === deleted || o.id === purged)).toEqual([]);
    expect([again.replica.scopeOf(deleted), again.replica.scopeOf(purged)]).toEqual(['B', 'B']);
    const unit = again.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' });
    expect(await served(unit, ['A'])).toEqual({ ids: [mine], total: 1 });
    expect((await served(unit, ['B'])).ids.sort()).toEqual([deleted, purged].sort());
    const peer = await node();
    const answer = (await unit.call('records', { scope: '*', ids: [deleted, purged] }, await greet(unit, peer, ['*']))) as { removedScopes?: Record<string, string> };
    expect(answer.removedScopes).toEqual({ [deleted]: 'B', [purged]: 'B' });
    const revive = craft(peer, { type: 'write', id: deleted, data: { $type: 'A', title: 'revived' } }, 'A', 1);
    expect(await push(unit, await greet(unit, peer, ['A']), [revive])).toMatchObject({ applied: 0, outOfScope: 1 });
    await Promise.all([again.close(), peer.close()]);
  });

  it('SCOPE-20: a delete of a record the host never held keeps the scope it declares: an A peer\'s snapshot does not hold its tombstone', async () => {
    const h = await hub({}, scoped);
    const writer = await node();
    const gone = craft(writer, { type: 'delete', id: 'b-record-never-seen-here' }, 'B', 1);
    expect(await push(h.unit, await greet(h.unit, writer, ['*']), [gone])).toMatchObject({ applied: 1 });
    expect(await served(h.unit, ['A'])).toEqual({ ids: [], total: 0 });
    expect((await served(h.unit, ['B'])).ids).toEqual(['b-record-never-seen-here']);
    await Promise.all([h.s.close(), writer.close()]);
  });

  it('SCOPE-20 BOOT-2: a node that bootstraps from a host takes each tombstone and purge marker in the scope the host holds it in: an A peer of that node is served neither of B\'s', async () => {
    const h = await hub({}, scoped);
    const { deleted, purged } = await removedOfB(h.s);
    const mine = await h.s.insert({ $type: 'A', title: 'mine' });
    const net = new Net();
    net.units.set('memory://h', h.unit);
    // A second hub joining the first (SYNCOM_PEERS): it bootstraps every scope, then serves peers of its own.
    const second = await dialer(net, { sync: { connect: net.connect, scope: typed, antiEntropyInterval: 0 } });
    const boots = record(second, 'bootstrap');
    await second.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => boots.length === 1, [second]);
    const unit = second.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' });
    expect(await served(unit, ['A'])).toEqual({ ids: [mine], total: 1 });
    expect((await served(unit, ['B'])).ids.sort()).toEqual([deleted, purged].sort());
    await closeAll(second, h.s);
  });

  it('SCOPE-20 RECON: a records answer names the scope of each tombstone and purge marker it serves, and a node joining them (anti-entropy) places them there', async () => {
    const h = await hub({}, scoped);
    const { deleted, purged } = await removedOfB(h.s);
    const fetcher = await node();
    const answer = (await h.unit.call('records', { scope: '*', ids: [deleted, purged] }, await greet(h.unit, fetcher, ['*']))) as { entries: unknown[]; removedScopes?: Record<string, string> };
    expect(answer.removedScopes).toEqual({ [deleted]: 'B', [purged]: 'B' });
    const joiner = await node(scoped);
    await Promise.all(joinPage(joiner.replica, answer.entries, h.s.id, { url: 'memory://h', node: h.s.id }, { removedScopes: answer.removedScopes }));
    expect([joiner.replica.scopeOf(deleted), joiner.replica.scopeOf(purged)]).toEqual(['B', 'B']);
    await closeAll(h.s, fetcher, joiner);
  });

  it('SCOPE-20 SCOPE-14: a tombstone a node took in the scope its host named is taken by an exactScopes host that never held the record: the node\'s stream of that scope goes on there', async () => {
    const h = await hub({}, scoped);
    const { deleted } = await removedOfB(h.s);
    const fetcher = await node();
    const answer = (await h.unit.call('records', { scope: '*', ids: [deleted] }, await greet(h.unit, fetcher, ['*']))) as { entries: unknown[]; removedScopes?: Record<string, string> };
    const relay = await node(scoped);
    await Promise.all(joinPage(relay.replica, answer.entries, h.s.id, { url: 'memory://h', node: h.s.id }, { removedScopes: answer.removedScopes }));
    const later = await relay.insert({ $type: 'B', title: 'after' });
    // A second hub of the same list (exact scopes, as a hub with scoped tokens runs) that has not met the record yet.
    const other = await hub({ exactScopes: true }, scoped);
    const refused = record(other.s, 'refused');
    const ops = opsOf(relay);
    expect(ops.map((o) => [o.type, o.scope])).toEqual([['merge', 'B'], ['write', 'B']]);
    expect(await push(other.unit, await greet(other.unit, relay, ['*']), ops)).toMatchObject({ applied: 2, outOfScope: 0 });
    expect(refused).toEqual([]);
    expect(await other.s.get(later)).toEqual({ $type: 'B', title: 'after' });
    expect(other.s.replica.scopeOf(deleted)).toBe('B');
    await closeAll(h.s, fetcher, relay, other.s);
  });

  it('SCOPE-20: a stale write of another scope landing on a tombstone moves it neither at once nor at the next open', async () => {
    const h = await hub({}, scoped);
    const writer = await node();
    const id = await h.s.insert({ $type: 'B', title: 'b' });
    // Stamped before the delete (a write made concurrently, elsewhere, where the record was A's): it lands, the record stays deleted.
    const stale = craft(writer, { type: 'set', id, data: { $type: 'A' }, ts: 1 }, 'A', 1);
    await h.s.delete(id);
    expect(await push(h.unit, await greet(h.unit, writer, ['*']), [stale])).toMatchObject({ applied: 1 });
    expect(await h.s.get(id)).toBeUndefined();
    expect(h.s.replica.scopeOf(id)).toBe('B');
    await h.s.close();
    const again = await reopen(h.s, scoped);
    expect(again.replica.scopeOf(id)).toBe('B');
    await Promise.all([again.close(), writer.close()]);
  });

  it('SCOPE-20 GUAR-26: a tombstone of a newer schema a node holds instead of joining is held in the scope its host names for it', async () => {
    const h = await hub({}, { ...scoped, schema: { version: 2, types: {} } });
    const { deleted } = await removedOfB(h.s);
    const fetcher = await node();
    const answer = (await h.unit.call('records', { scope: '*', ids: [deleted] }, await greet(h.unit, fetcher, ['*']))) as { entries: unknown[]; removedScopes?: Record<string, string> };
    expect(answer.removedScopes).toEqual({ [deleted]: 'B' });
    const older = await node({ ...scoped, schema: { version: 1, types: {} } });
    await Promise.all(joinPage(older.replica, answer.entries, h.s.id, { url: 'memory://h', node: h.s.id }, { removedScopes: answer.removedScopes }));
    // Held, not applied (it lands on a reopen with the newer schema): its merge declares the scope all the same.
    expect(opsOf(older).map((o) => [o.type, o.id, o.scope])).toEqual([['merge', deleted, 'B']]);
    await older.close();
    // Upgraded, it lands at the open and keeps that scope.
    const upgraded = await reopen(older, { ...scoped, schema: { version: 2, types: {} } });
    expect(upgraded.replica.current(deleted)?.del).toBe(true);
    expect(upgraded.replica.scopeOf(deleted)).toBe('B');
    await closeAll(h.s, fetcher, upgraded);
  });

  it('SCOPE-20: a tombstone in no scope yet is placed by an op that removes the record, not by a stale write landing on it, at its commit as at the next open', async () => {
    const h = await hub({}, scoped);
    const [deleter, writer] = await Promise.all([node(), node()]);
    // A node without a scope function deletes a record this host never held: declared '*', it is placed nowhere.
    const gone = craft(deleter, { type: 'delete', id: 'x' }, '*', 1);
    expect(await push(h.unit, await greet(h.unit, deleter, ['*']), [gone])).toMatchObject({ applied: 1 });
    const stale = craft(writer, { type: 'set', id: 'x', data: { $type: 'A' }, ts: 1 }, 'A', 1);
    expect(await push(h.unit, await greet(h.unit, writer, ['*']), [stale])).toMatchObject({ applied: 1 });
    expect(await h.s.get('x')).toBeUndefined();
    const before = h.s.replica.scopeOf('x');
    await h.s.close();
    const again = await reopen(h.s, scoped);
    expect([before, again.replica.scopeOf('x')]).toEqual(['*', '*']);
    await Promise.all([again.close(), deleter.close(), writer.close()]);
  });
});
