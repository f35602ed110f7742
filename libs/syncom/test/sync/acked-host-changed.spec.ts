import { closeAll, hub, Net, node, until } from './helpers';

const URL = 'memory://h';

// A node keeps its own ops until each registered node holds them, by the acked marks
// its hosts' answers set. A hello said what the host holds, but only the streams it
// named moved the marks: a url answered by another node, or the hub restored from a
// copy taken before this node's first op reached it, held none of the stream, and
// acked kept the old host's count. Retention then dropped ops the host never had
// (UNDELIVERABLE, and every later write a gap there).
describe('LOG-17: a hello lowers the acked marks of the streams its host does not hold', () => {
  it('a url now answered by a node holding none of this node\'s stream: acked reads 0 at once, and the ops reach it', async () => {
    const net = new Net();
    const h1 = await hub();
    net.units.set(URL, h1.unit);
    const d = await node({ sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await d.insert({ i }));
    await until(() => d.sync.listNodes()[0].acked[d.id] === 3, [d]);
    const h2 = await hub();
    net.units.set(URL, h2.unit);
    const ackedAtHello: number[] = [];
    d.sync.on('peer', (p) => { if (p.connected && p.node === h2.s.id) ackedAtHello.push(d.sync.listNodes()[0].acked[d.id] ?? 0); });
    await d.sync.enableNode(URL, false);
    await d.sync.enableNode(URL, true);
    await until(() => ackedAtHello.length > 0, [d]);
    expect(ackedAtHello[0]).toBe(0);
    await until(async () => (await Promise.all(ids.map((id) => h2.s.has(id)))).every(Boolean), [d, h2.s]);
    await until(() => d.sync.listNodes()[0].acked[d.id] === 3, [d]);
    await closeAll(d, h1.s, h2.s);
  });
});
