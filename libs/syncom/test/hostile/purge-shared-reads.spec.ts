import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';

const S = 'ZZRESIDUE55';

/** The packed ops and pages a unit's kept shared reads hold, as text. */
function keptText(unit: unknown): string {
  const reads = (unit as { reads: { reads: Map<string, { read: { texts: { packed: unknown[] }; pages: Map<string, unknown>[] } }> } }).reads.reads;
  const out: string[] = [];
  for (const { read } of reads.values()) {
    out.push(JSON.stringify(read.texts.packed));
    for (const byPrev of read.pages) if (byPrev) for (const p of byPrev.values()) out.push(JSON.stringify(p));
  }
  return out.join('\n');
}

// The feeds' shared reads keep packed copies of the ops they paged. A purge's scrub
// made them stale (never served again), but they stayed in the host's memory until a
// feed asked for the same position again: on a quiet hub, for good.
it('OPS-11: a host lets go of the feed reads holding a purged payload once the scrub is done, on a quiet hub too', async () => {
  const net = new Net();
  const h = await hub();
  net.units.set('memory://h', h.unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
  await d.sync.addNode({ url: 'memory://h', token: 't' });
  await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
  const x = await h.s.insert({ title: `${S}-title` });
  await until(async () => (await d.get(x)) !== undefined, [d]);
  expect(keptText(h.unit)).toContain(S);
  await h.s.purge(x);
  await until(async () => (await d.record(x)) === undefined, [d]);
  await internals(h.s).committer.idle();
  expect(keptText(h.unit)).not.toContain(S);
  // Later writes page as before.
  const y = await h.s.insert({ n: 1 });
  await until(async () => (await d.get(y)) !== undefined, [d]);
  expect(keptText(h.unit)).not.toContain(S);
  await closeAll(d, h.s);
});
