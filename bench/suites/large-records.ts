import { open } from '../../libs/syncom/src';
import type { Op, Storage } from '../../libs/syncom/src';
import { packOps } from '../../libs/syncom/src/op';
import { createReconciler } from '../../libs/syncom/src/reconcile';
import { newSigningKey } from '../../libs/syncom/src/testing/signing-key';
import { timed } from '../lib/measure';
import { removeTemp, tempPath } from '../lib/temp';
import type { Benchmark, Profile, Suite } from '../lib/types';

/** Ops a push carries, as a dialer's page would. */
const PUSH = 100;

type Unit = ReturnType<Storage['sync']['unit']>;

/**
 * One-element adds pushed to a host unit, `perPush` to a push (PUSH, or 1:
 * each add its own batch and record file), into a set that holds `size`
 * elements before the timed part: what a token holder's ops on a large
 * record cost the host (docs/security.md). Unsigned ops of one origin,
 * durable off: the figure is the merge and the record file, not the
 * signature check. With `reconcile`, each push is followed by a reconcile
 * start (a peer alternating the two: the host digests the record again).
 */
function pushedAdds(size: number, ops: number, baseline: string | null, perPush = PUSH, reconcile = false): Benchmark {
  return {
    name: `add/set-${size >= 1000 ? `${size / 1000}k` : size}/pushed${perPush === 1 ? '-alone' : ''}${reconcile ? '-reconciled' : ''}`, unit: 'ops/s', baseline, ops,
    async run() {
      const path = tempPath('large-records');
      const storage = await open({ path, durable: false });
      try {
        const unit: Unit = storage.sync.unit({ access: 'public' });
        const { node } = newSigningKey();
        const ctx = {};
        await unit.call('hello', { node, vector: {}, epoch: 'e', schema: null, scopes: ['*'] }, ctx);
        let seq = 0;
        const t0 = Date.now() - 3_600_000;
        const op = (value: string[]): Op => ({ origin: node, seq: ++seq, ts: t0 + seq, type: 'add', id: 'big', key: 'tags', value }) as Op;
        await unit.call('push', { ops: packOps([op(Array.from({ length: size }, (_, i) => `e${i}`))]) }, ctx);
        const pushes = Array.from({ length: ops / perPush }, (_, p) => packOps(Array.from({ length: perPush }, (_, i) => op([`x${p * perPush + i}`]))));
        const msg = createReconciler({ items: [{ ts: 1, id: 'x', digest: 'd' }] }).initiate();
        if (reconcile) await unit.call('reconcile', { scope: '*', msg, start: true }, ctx);
        return await timed(async () => {
          for (const ops of pushes) {
            await unit.call('push', { ops }, ctx);
            if (reconcile) await unit.call('reconcile', { scope: '*', msg, start: true }, ctx);
          }
        });
      } finally {
        await storage.close();
        removeTemp(path);
      }
    },
  };
}

/**
 * An op on a large record against the same op on a small one: adds into a
 * set of 100,000 elements beside adds into one of 10 (ratio: how much of
 * the small record's rate the large one keeps), 100 to a push and one to a
 * push, and one to a push each followed by a reconcile start. Before a
 * large map was held in a sorted map, each add copied the set: about 90 ms
 * an op; before record files held parts, each push wrote the set's text
 * again: about 10 ms a push; before a large map's digest was a trie kept
 * beside it, each reconcile hashed the set's text: 5-15 ms.
 */
export function largeRecordsSuite(profile: Profile): Suite {
  const ops = profile.quick ? 2_000 : 10_000;
  const alone = profile.quick ? 300 : 1_000;
  const small = pushedAdds(10, ops, null);
  const smallAlone = pushedAdds(10, alone, null, 1);
  const smallReconciled = pushedAdds(10, alone, null, 1, true);
  return {
    benchmarks: [
      small, pushedAdds(100_000, ops, small.name),
      smallAlone, pushedAdds(100_000, alone, smallAlone.name, 1),
      smallReconciled, pushedAdds(100_000, alone, smallReconciled.name, 1, true),
    ],
  };
}
