import type { SyncomError } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, until } from '../sync/helpers';
import { CLAIMS_URL as URL, dialerOfClaims } from './vector-claims';

/**
 * A hello answer claiming more of this node's streams than its log holds
 * moves them (REWOUND, docs/security.md "What stays open"). Each stream
 * moved wrote log/index.json, which holds every one moved: a hello naming
 * k streams wrote it k times, each the size of k, so its cost grew as the
 * square of the answer (1,000 streams: 0.19 s of CPU; 4,000: 13 s).
 */

const STREAMS = 2_000;

describe('hostile host: a hello claiming many streams of this node', () => {
  it('LOG-22 LOG-23: the streams it names move, are reported REWOUND, and log/index.json is written a bounded number of times, not once per stream', async () => {
    const h = await hub();
    let once = false;
    const { d, backend, errors } = await dialerOfClaims(h, (method, self) => {
      if (method !== 'hello' || once) return undefined;
      once = true;
      return Object.fromEntries(Array.from({ length: STREAMS }, (_, i) => [`${self}@s${i}`, 1]));
    });
    const write = jest.spyOn(backend, 'write');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.length > 0, [d]);
    await d.sync.synced(URL);
    expect(errors.map((e) => e.code)).toEqual(['REWOUND']);
    expect(Object.keys((errors[0] as SyncomError & { streams: object }).streams)).toHaveLength(STREAMS);
    expect(internals(d).log.vector[`${d.id}@s${STREAMS - 1}`]).toBe(1);
    const indexWrites = write.mock.calls.filter(([p]) => String(p).startsWith('log/index')).length;
    // A few (the REWOUND's, a seal's); one per stream moved before.
    expect(indexWrites).toBeLessThan(20);
    await closeAll(d, h.s);
  });
});
