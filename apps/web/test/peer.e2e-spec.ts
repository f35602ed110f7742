import { applyPeerOps, type Storage } from 'syncom';
import { forgedBySmallOrder, SMALL_ORDER } from '../../../libs/syncom/test/hostile/weak-keys';
import { describeBrowser } from './harness/chromium';
import { pageAndHubs } from './harness/page-and-hubs';
import { nodeCount, nodeDialer, nodeRefused, OpWriter } from './node-peers';

const TOKEN = 't';

describeBrowser('browser peer against Node hubs', () => {
  const dialers: Storage[] = [];
  const { env, hubs } = pageAndHubs(async () => {
    for (const d of dialers) await d.close().catch(() => undefined);
  });

  it('SIG-28 SIG-13 SIG-16 SIG-17 SIG-18 SIG-21: a hostile host relays forged ops among 200 honest ones; the browser checks them in Web Crypto, applies the 200 and refuses the forged with the verdicts a Node peer gives', async () => {
    // A hub that checks nothing is the hostile host: it takes the forged ops and relays them.
    const evil = await hubs.start('evil', { signatures: false, webDir: false });
    const node = await nodeDialer(`${hubs.apps.dir}/node-dialer`);
    dialers.push(node);
    await node.sync.addNode({ url: evil.syncomUrl, token: TOKEN });
    const { kit } = await env.tab(await env.context());
    await kit.open('hostile', { hub: { url: evil.syncomUrl, token: TOKEN } });
    // Both subscribed past their (empty) bootstrap, so what follows comes op by op, each one verified.
    await Promise.all([node.sync.synced(evil.syncomUrl), kit.synced('hostile', evil.syncomUrl)]);
    const nodeVerdicts = nodeRefused(node, 2);

    const honest = new OpWriter();
    const tampered = { ...new OpWriter().write('tampered', { v: 'signed' }), data: { v: 'changed' } };
    const weak = forgedBySmallOrder(SMALL_ORDER[2], { id: 'small-order' });
    const ops = [tampered, weak, ...Array.from({ length: 200 }, (_, i) => honest.write(`honest-${i}`, { i }))];
    const put = await applyPeerOps(evil.storage, ops, { via: { url: 'memory://evil', node: honest.id }, signatures: false });
    expect(put.applied).toBe(202);

    const [inBrowser, inNode] = await Promise.all([kit.untilRefused('hostile', 2), nodeVerdicts]);
    // The refusals, not how they were paged: the applied counts and the number of errors depend on
    // which ops shared a page, which is timing.
    const refusals = ({ applied: _a, errors, ...v }: typeof inNode) => ({ ...v, errors: [...new Set(errors)] });
    expect(refusals(inBrowser)).toEqual(refusals(inNode));
    expect(refusals(inBrowser)).toEqual({ forged: 2, unsigned: 0, malformed: 0, errors: ['BAD_SIGNATURE'] });
    await Promise.all([kit.untilCount('hostile', 200), nodeCount(node, 200)]);
    const ids = (await kit.list('hostile')).map((r) => r.id).sort();
    expect(ids).toEqual((await node.list()).map((r) => r.id).sort());
    expect(ids).toHaveLength(200);
    expect(ids).not.toContain('tampered');
    expect(ids).not.toContain('small-order');
  });

  it('BOOT-1: a fresh tab bootstraps 10,000 records from a hub that holds them, into OPFS, and ends in sync', async () => {
    // The hub's own Node storage writes them (signed, as a Node peer's would come): pushing them from
    // another Node peer first would double the test's time and test the hub's ingest, not the browser.
    const hub = await hubs.start('full', { webDir: false });
    for (let i = 0; i < 10_000; i += 2_000) {
      await Promise.all(Array.from({ length: 2_000 }, (_, k) => hub.storage.insert({ $type: 'Note', title: `note ${i + k}`, body: 'x'.repeat(40) })));
    }
    const last = (await hub.storage.list()).find((r) => r.data.title === 'note 9999');

    const { kit } = await env.tab(await env.context());
    const started = performance.now();
    await kit.open('fresh', { hub: { url: hub.syncomUrl, token: TOKEN } });
    expect(await kit.untilCount('fresh', 10_000)).toBe(10_000);
    const joined = performance.now();
    await kit.synced('fresh', hub.syncomUrl, 45_000);
    const ms = (t: number) => Math.round(t - started);
    process.stderr.write(`browser bootstrap of 10,000 records: all joined at ${ms(joined)} ms, in sync at ${ms(performance.now())} ms\n`);
    expect(await kit.get('fresh', String(last?.id))).toEqual({ $type: 'Note', title: 'note 9999', body: 'x'.repeat(40) });
  });
});
