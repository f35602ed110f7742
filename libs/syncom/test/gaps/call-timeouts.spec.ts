import { internals } from '../../src/testing/internals';
import { createMemoryLink, SyncomError, type SyncLink } from '../../src';
import { closeAll, hub, node } from '../sync/helpers';
import { record, waitFor } from '../sync/scenario-helpers';

const URL = 'memory://h';

describe('timeouts are the link\'s', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  it('LIFE-23: a push the link never answers is not failed by the engine — an hour later there is still no error, and the feed keeps flowing', async () => {
    const h = await hub();
    const hung: ((e: unknown) => void)[] = [];
    const connect = (): SyncLink => {
      const link = createMemoryLink(h.unit);
      return {
        // A push goes out and is never answered (until the link closes, as a transport would fail it).
        call: (method, args) => (method === 'push' ? new Promise((_resolve, reject) => void hung.push(reject)) : link.call(method, args)),
        subscribe: (method, args, options) => link.subscribe(method, args, options),
        stream: (id) => link.stream(id),
        on: (e, l) => link.on(e, l),
        off: (e, l) => link.off(e, l),
        close: () => {
          for (const reject of hung.splice(0)) reject(new SyncomError('LINK_DOWN', 'closed'));
          link.close();
        },
      };
    };
    const d = await node({ sync: { connect } });
    const errors = record(d, 'error');
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    await d.insert({ mine: 1 });
    // Other work completes meanwhile: the host's write arrives on the subscription.
    const id = await h.s.insert({ theirs: 1 });
    await waitFor(() => d.has(id), [d]);
    await jest.advanceTimersByTimeAsync(60 * 60_000);
    expect(hung).toHaveLength(1);
    expect(errors).toEqual([]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, lastError: null });
    expect(internals(h.s).log.vector[d.id]).toBeUndefined();
    await closeAll(d, h.s);
  });
});
