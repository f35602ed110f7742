import { createMemoryBackend, open, type Storage } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, Net, seeded, until } from './helpers';

const URL = 'memory://h';

async function hostOn(net: Net, backend: ReturnType<typeof createMemoryBackend>): Promise<Storage> {
  const h = await open({ path: 'h', backend });
  net.units.set(URL, h.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' }));
  return h;
}

// A host that writes records of its own, restored from a copy taken before some of
// them: nothing told it its dialers held more of its stream, so its next writes took
// seqs they held, and they dropped them as duplicates (synced, nothing reported).
// Its dialers now push its own ops back where its vector lacks them.
describe('LOG-23: a host restored from an older copy of itself', () => {
  it('takes its own ops back from a dialer, and its next writes reach the dialer', async () => {
    const net = new Net();
    const disk = await seeded();
    let h = await hostOn(net, disk);
    const a = await h.insert({ n: 'a' });
    const d = await open({ path: 'd', backend: await seeded(), sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 10_000 });
    await h.close();
    const backup = disk.snapshot();
    h = await hostOn(net, disk);
    await d.sync.enableNode(URL, false);
    await d.sync.enableNode(URL, true);
    for (const n of ['b1', 'b2', 'b3']) await h.insert({ n });
    await until(() => (internals(d).log.vector[h.id] ?? 0) === 4, [d]);
    await h.close();
    h = await hostOn(net, createMemoryBackend({ from: backup }));
    expect(internals(h).log.vector[h.id]).toBe(1);
    await d.sync.enableNode(URL, false);
    await d.sync.enableNode(URL, true);
    await until(() => internals(h).log.vector[h.id] === 4, [d, h]);
    const c = await h.insert({ n: 'c' });
    await until(async () => d.has(c), [d, h]);
    expect(await d.has(a)).toBe(true);
    expect(internals(d).log.vector[h.id]).toBe(5);
    await closeAll(d, h);
  });
});
