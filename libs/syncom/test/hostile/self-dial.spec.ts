import { internals } from '../../src/testing/internals';
import type { SyncomError } from '../../src';
import { closeAll, hub, Net, until } from '../sync/helpers';

/**
 * A node that dials its own url (an operator gave every hub the same full
 * list of peers) must notice from the hello answer, which carries the host's
 * node id, and stop before any push, subscription or bootstrap: bootstrapping
 * from itself appended a merge op for every record, which then replicated
 * into every other log.
 */

const URL = 'memory://self';

async function selfDialing(records: number) {
  const net = new Net();
  const h = await hub({}, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
  net.units.set(URL, h.unit);
  for (let i = 0; i < records; i++) await h.s.insert({ i });
  const errors: SyncomError[] = [];
  h.s.sync.on('error', (e) => errors.push(e));
  const boots: unknown[] = [];
  h.s.sync.on('bootstrap', (e) => boots.push(e));
  return { net, s: h.s, errors, boots };
}

describe('a node dialing itself', () => {
  it('PROTO-4: stops at the hello answer naming its own id, with SELF_DIAL; never bootstraps from itself and appends nothing', async () => {
    const { s, errors, boots } = await selfDialing(30);
    const head = internals(s).log.head;
    await s.sync.addNode({ url: URL, token: 't' });
    // Without the check the dialer subscribes and bootstraps: either ends the wait, and the asserts below fail.
    await until(() => errors.length > 0 || boots.length > 0 || s.sync.peers()[0]?.subscribed === true, [s], 10_000);
    await s.sync.flush();
    expect(errors.map((e) => [e.code, e.url])).toEqual([['SELF_DIAL', URL]]);
    expect(boots).toEqual([]);
    expect(internals(s).log.head).toBe(head);
    expect(s.sync.peers()[0]).toMatchObject({ url: URL, connected: false, subscribed: false, lastError: { code: 'SELF_DIAL' } });
    await closeAll(s);
  });

  it('PROTO-4: a write after the self-dial is not pushed to itself and nothing more is appended', async () => {
    const { net, s, errors } = await selfDialing(3);
    await s.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.length > 0, [s], 10_000);
    await s.insert({ later: true });
    const head = internals(s).log.head;
    await s.sync.flush();
    expect(internals(s).log.head).toBe(head);
    expect(net.links.every((l) => !l.connected)).toBe(true);
    await closeAll(s);
  });
});
