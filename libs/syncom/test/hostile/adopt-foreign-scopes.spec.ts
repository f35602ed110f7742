import { createMemoryLink, type SyncomError } from '../../src';
import type { HostUnit } from '../../src/link';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';

/**
 * A snapshot's first page names the host's vector, which the dialer adopts
 * as advance ops, one per scope (BOOT-5). An honest host names only the
 * streams of the scopes served (servedVector); a hostile one named thousands
 * of scopes the dialer never asked for, and the dialer signed, logged and
 * relayed an advance op for each, at every bootstrap: about one signature
 * per 20 bytes the host sent. The dialer adopts only the scopes it asked for.
 */

const URL = 'memory://h';
const FOREIGN = 2_000;

/** A unit whose first snapshot page names FOREIGN streams of scopes nobody asked for. */
function padded(unit: HostUnit): HostUnit {
  return {
    access: unit.access,
    async call(m, args, ctx) {
      const ans = await unit.call(m, args, ctx);
      if (m !== 'snapshot') return ans;
      const page = JSON.parse(JSON.stringify(ans)) as { vector?: Record<string, number> };
      if (!page.vector) return page;
      for (let i = 0; i < FOREIGN; i++) page.vector[`someone@s${i}`] = 1;
      return page;
    },
    subscribe: (m, a, c, o) => unit.subscribe(m, a, c, o),
    stream: (id, c) => unit.stream(id, c),
    disconnect: (c) => unit.disconnect(c),
  };
}

describe('hostile host: a snapshot vector naming scopes the dialer never asked for', () => {
  it('BOOT-5 SCOPE-20: the dialer adopts the streams of the scopes it asked for, one advance op each, not one per scope the host named', async () => {
    const h = await hub({}, { sync: { scope: (_id, data) => (typeof data.team === 'string' ? data.team : '*') } });
    await h.s.set('one', { team: 'a' });
    const d = await node({ sync: { connect: () => createMemoryLink(padded(h.unit)), antiEntropyInterval: 0, scope: (_id, data) => (typeof data.team === 'string' ? data.team : '*') } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    const booted = new Promise<void>((resolve) => { const off = d.sync.on('bootstrap', () => { off(); resolve(); }); });
    await d.sync.addNode({ url: URL, token: 't', scopes: ['a'] });
    await booted;
    await internals(d).committer.idle();
    const advances = internals(d).log.read(0).filter((e) => e.op.type === 'advance');
    expect(errors).toEqual([]);
    expect((await d.get('one'))?.team).toBe('a');
    // '*' always, and 'a' where the host has streams of it.
    expect(advances.length).toBeLessThanOrEqual(2);
    expect(advances.flatMap((e) => Object.keys(e.op.vector ?? {})).filter((k) => k.startsWith('someone@'))).toEqual([]);
    await closeAll(d, h.s);
  });
});
