import type { Storage, SyncomError } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';

/**
 * Anti-entropy never stalls a stream (SCOPE-14, SCOPE-19): a record that
 * moved out of a scope a node carries, where the node cannot see it go, is
 * settled by reconciliation without a merge the host would refuse; and a
 * refusal that does stop a stream (the node writing a record it may no
 * longer read) is reported — OUT_OF_SCOPE, lastError, behind.
 */

const URL = 'memory://h';
const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');

/** A hub scoped by $type and a node that carries scope A only; r is an A record both hold, then moved to B at the hub. */
async function moved() {
  const net = new Net();
  const h = await hub({}, { sync: { scope: typed } });
  net.units.set(URL, h.unit);
  const n = await dialer(net, { sync: { connect: net.connect, scope: typed, antiEntropyInterval: 0 } });
  const errors: SyncomError[] = [];
  n.sync.on('error', (e) => errors.push(e));
  const refused: { reason: string; count: number }[] = [];
  h.s.sync.on('refused', (e) => refused.push(e));
  await n.sync.addNode({ url: URL, token: 't', scopes: ['A'] });
  await until(() => n.sync.peers()[0]?.subscribed === true && n.sync.peers()[0].connected, [n]);
  const r = await h.s.insert({ $type: 'A', title: 'in A' });
  await until(async () => n.has(r), [n]);
  await h.s.update(r, { $type: 'B' });
  return { h, n, r, errors, refused };
}

/** Resolves once the hub holds the id. */
const reaches = (h: { s: Storage }, n: Storage, id: string) => until(async () => h.s.has(id), [n, h.s], 5000);

describe('a record moved out of a scope under anti-entropy', () => {
  it('SCOPE-14, SCOPE-19: reconciliation (three runs) pushes no merge the host refuses; the node\'s later writes in A reach the host; nothing is reported', async () => {
    const { h, n, r, errors, refused } = await moved();
    for (let i = 0; i < 3; i++) await n.sync.forceSync();
    const later = await n.insert({ $type: 'A', title: 'later' });
    await reaches(h, n, later);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    expect(n.sync.peers()[0]).toMatchObject({ behind: false, lastError: null });
    expect((await h.s.get(r))?.$type).toBe('B');
    await closeAll(n, h.s);
  });

  it('SCOPE-19: a refusal that stops a stream is reported once: OUT_OF_SCOPE (403) with the stream, lastError, behind true', async () => {
    const { h, n, r, errors, refused } = await moved();
    // The node still reads r as an A record: its write touches a record of B at the hub.
    await n.update(r, { title: 'written in A here' });
    await until(() => errors.length > 0, [n, h.s]);
    await n.insert({ $type: 'A', title: 'after the refusal' });
    await until(() => refused.length >= 2, [n, h.s]);
    expect(errors.map((e) => [e.code, e.status, e.url])).toEqual([['OUT_OF_SCOPE', 403, URL]]);
    expect(errors[0]).toMatchObject({ streams: [`${n.id}@A`] });
    expect(n.sync.peers()[0]).toMatchObject({ behind: true, lastError: { code: 'OUT_OF_SCOPE' } });
    await closeAll(n, h.s);
  });

  it('OPS-10, SCOPE-19: a record purged after it left the node\'s scope (its purge op of a scope the node does not carry) is erased at the node by reconciliation: no read, no data left in its log', async () => {
    const { h, n, r, errors } = await moved();
    await h.s.purge(r);
    expect(await n.get(r)).toMatchObject({ title: 'in A' });
    await n.sync.forceSync();
    expect(await n.get(r)).toBeUndefined();
    expect(await n.has(r)).toBe(false);
    expect((await n.list()).map((x) => x.id)).not.toContain(r);
    // The purge scrubbed every entry of the id in the node's log too: no field value of it is left there.
    await internals(n).committer.idle();
    const texts = internals(n).log.read(0).filter((e) => e.op.id === r).map((e) => JSON.stringify(e.op));
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.join('\n')).not.toContain('in A');
    expect(errors).toEqual([]);
    await closeAll(n, h.s);
  });
});
