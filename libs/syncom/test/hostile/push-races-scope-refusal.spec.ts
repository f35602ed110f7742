import { createMemoryLink, type SyncomError } from '../../src';
import type { HostUnit } from '../../src/link';
import { closeAll, hub, node, until } from '../sync/helpers';

/**
 * A write that lands while a push is being refused as out of scope
 * (SCOPE-12, SCOPE-19) is recovered (HOST-16): the host's vector decides
 * what is pushed, so the refused op goes again before it, not the write
 * alone (a gap the host drops, with no later commit bound to come and
 * recover it). Each test forces the interleaving with a hook.
 */

const URL = 'memory://h';
const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');

/** A connect whose push answers wait for `gate.held` while it is set (the host has answered; the dialer does not see it yet). */
function gatedConnect(unit: HostUnit, gate: { held?: Promise<void> }) {
  return () => {
    const link = createMemoryLink(unit);
    const call = link.call.bind(link);
    link.call = async (method: string, body?: unknown) => {
      const ans = await call(method, body);
      if (method === 'push' && gate.held) await gate.held;
      return ans;
    };
    return link;
  };
}

/** A hub scoped by $type, a node that carries scope A only, and r: an A record both hold, then moved to B at the hub. */
async function moved(gate: { held?: Promise<void> } = {}) {
  const h = await hub({}, { sync: { scope: typed } });
  const n = await node({ sync: { connect: gatedConnect(h.unit, gate), scope: typed, antiEntropyInterval: 0 } });
  const refused: unknown[] = [];
  const waits: { k: number; resolve: () => void }[] = [];
  h.s.sync.on('refused', (e) => {
    refused.push(e);
    for (const w of waits) if (refused.length >= w.k) w.resolve();
  });
  /** Resolves once the host has refused k pushes (rejects after 5 s so a failure reports). */
  const refusals = (k: number) => new Promise<void>((resolve, reject) => {
    if (refused.length >= k) return resolve();
    waits.push({ k, resolve });
    setTimeout(() => reject(new Error(`${refused.length} refusal(s), ${k} awaited`)), 5000).unref();
  });
  await n.sync.addNode({ url: URL, token: 't', scopes: ['A'] });
  await until(() => n.sync.peers()[0]?.subscribed === true && n.sync.peers()[0].connected, [n]);
  const r = await h.s.insert({ $type: 'A', title: 'in A' });
  await until(async () => n.has(r), [n]);
  await h.s.update(r, { $type: 'B' });
  return { h, n, r, refusals };
}

describe('hostile: a write racing an out-of-scope refusal', () => {
  it('SCOPE-19 HOST-16: a write committed while the refused push awaits its answer is recovered (the refused op pushed again), not pushed alone', async () => {
    let release!: () => void;
    const gate: { held?: Promise<void> } = {};
    const { h, n, r, refusals } = await moved(gate);
    gate.held = new Promise((resolve) => (release = resolve));
    void n.update(r, { title: 'written in A here' });
    await refusals(1);
    // The host refused; the dialer has not read the answer: its relay of this write is queued behind that push.
    await n.insert({ $type: 'A', title: 'while the answer is in flight' });
    gate.held = undefined;
    release();
    await refusals(2);
    expect(n.sync.peers()[0]).toMatchObject({ behind: true, lastError: { code: 'OUT_OF_SCOPE' } });
    await closeAll(n, h.s);
  });

  it('SCOPE-19 HOST-16: the node is behind when OUT_OF_SCOPE is reported, so a write made by the error listener is recovered', async () => {
    const { h, n, r, refusals } = await moved();
    const seen: { behind: boolean; code: string }[] = [];
    let later: Promise<string> | undefined;
    n.sync.on('error', (e: SyncomError) => {
      seen.push({ behind: n.sync.peers()[0].behind, code: e.code });
      later ??= n.insert({ $type: 'A', title: 'written by the listener' });
    });
    await n.update(r, { title: 'written in A here' });
    await refusals(2);
    await later;
    expect(seen).toEqual([{ behind: true, code: 'OUT_OF_SCOPE' }]);
    await closeAll(n, h.s);
  });
});
