import { createMemoryLink, type SyncomError } from '../../src';
import { SyncomError as Err } from '../../src/errors';
import type { SyncLink } from '../../src/link/contract';
import { closeAll, hub, node, until } from './helpers';

const URL = 'memory://h';

/** A memory link whose first call (the hello) is lost, its connection staying up: what a link that does not cycle after a lost call leaves. */
function losingFirstCall(link: SyncLink): SyncLink & { lost: number } {
  let calls = 0;
  const out = Object.create(link) as SyncLink & { lost: number };
  out.lost = 0;
  out.call = (method: string, args: unknown) => {
    if (calls++ === 0) {
      out.lost++;
      return Promise.reject(new Err('LINK_TIMEOUT', 'lost by the test'));
    }
    return link.call(method, args);
  };
  return out;
}

describe('a hello lost on a link that stays up', () => {
  it('PROTO-13: is sent again a second later (the link never reconnects, so nothing else would greet it), and the two nodes sync', async () => {
    const h = await hub();
    const links: (SyncLink & { lost: number })[] = [];
    const connect = () => {
      const link = losingFirstCall(createMemoryLink(h.unit));
      links.push(link);
      return link;
    };
    const d = await node({ sync: { connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    const mine = await d.insert({ from: 'd' });
    const theirs = await h.s.insert({ from: 'h' });
    await until(async () => (await h.s.has(mine)) && (await d.has(theirs)), [d, h.s]);
    expect(links.map((l) => l.lost)).toEqual([1]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true });
    // A lost call on a live link is not reported as an error: the retry mends it.
    expect(errors).toEqual([]);
    await closeAll(d, h.s);
  });
});
