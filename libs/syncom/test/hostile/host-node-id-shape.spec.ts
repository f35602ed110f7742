import type { SyncomError } from '../../src';
import type { HostUnit } from '../../src/link';
import { checkShape } from '../../src/op';
import { checkHelloAnswer } from '../../src/sync/protocol/hello';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, Net, node, until } from '../sync/helpers';

/**
 * A host's hello answer names its node id, which the dialer keeps as the
 * host's and signs the merges and advances of a bootstrap from it with, as
 * their `from`. An op's `from` is an origin (no '@' nor '<'): an answer whose
 * `node` was any string of 1-128 characters had the dialer make ops every
 * honest peer refused as malformed, without a word to the app.
 */

const URL = 'memory://odd';

/** A unit whose hello answers name `node` as the host's id. */
function naming(unit: HostUnit, node: string): HostUnit {
  return {
    access: unit.access,
    async call(m, args, ctx) {
      const ans = await unit.call(m, args, ctx);
      return m === 'hello' ? { ...(JSON.parse(JSON.stringify(ans)) as object), node } : ans;
    },
    subscribe: (m, a, c, o) => unit.subscribe(m, a, c, o),
    stream: (id, c) => unit.stream(id, c),
    disconnect: (c) => unit.disconnect(c),
  };
}

describe('hostile host: a hello answer naming a node id that is no origin', () => {
  const answer = { node: 'h', vector: {}, epoch: 'e', schema: null, floor: 0, version: 1, caps: [] };

  it.each(['h@x', 'h<x', 'a@b<c'])('PROTO-4: checkHelloAnswer refuses node %s as BAD_HELLO (400)', (id) => {
    expect(() => checkHelloAnswer({ ...answer, node: id })).toThrow(expect.objectContaining({ code: 'BAD_HELLO', status: 400 }) as Error);
  });

  it('PROTO-4: a node id of an origin\'s shape is taken', () => {
    expect(checkHelloAnswer(answer).node).toBe('h');
  });

  it.each(['h@x', 'h<x'])('PROTO-4 BOOT-5: a host answering node %s is reported BAD_HELLO; the dialer bootstraps nothing and signs no op with that from', async (id) => {
    const h = await hub();
    for (let i = 0; i < 3; i++) await h.s.insert({ i });
    const net = new Net();
    net.units.set(URL, naming(h.unit, id));
    const d = await node({ sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    // Before, the dialer greeted, bootstrapped and said nothing: the wait ran out and the asserts below failed.
    await until(() => errors.length > 0, [d], 5000);
    await d.sync.flush();
    await internals(d).committer.idle();
    expect(errors.map((e) => [e.code, e.status, e.url])).toEqual([['BAD_HELLO', 400, URL]]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: false, node: null, lastError: { code: 'BAD_HELLO' } });
    expect(await d.list()).toEqual([]);
    expect(internals(d).log.read(0).filter((e) => !checkShape(e.op).ok)).toEqual([]);
    await closeAll(d, h.s);
  });
});
