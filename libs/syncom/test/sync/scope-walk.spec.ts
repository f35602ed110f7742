import { packOps, type Op } from '../../src/op';
import { hub } from './helpers';

/**
 * A scoped session's push applies each op once for the scope boundary, and
 * the commit takes that result when the record is still the one the walk
 * applied it to. These pin the "still": a record changed by another push
 * while the page waits (beforeApply) is applied to afresh.
 */

const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');
const write = (origin: string, seq: number, ts: number, data: Record<string, unknown>): Op => ({ origin, seq, ts, type: 'write', id: 'r', scope: 'A', data });
const set = (origin: string, seq: number, ts: number, data: Record<string, unknown>): Op => ({ origin, seq, ts, type: 'set', id: 'r', scope: 'A', data });

async function scopedHub(hook?: (op: Op) => Promise<boolean> | boolean) {
  const h = await hub({}, { sync: { signatures: false, scope: typed }, hooks: hook && { beforeApply: ({ op }) => hook(op) } });
  const hello = async (node: string) => {
    const context = {};
    await h.unit.call('hello', { node, token: 't', scopes: ['A'], vector: {}, epoch: 'e', versions: [1] }, context);
    return (ops: Op[]) => h.unit.call('push', { ops: packOps(ops) }, context) as Promise<{ applied: number; outOfScope: number }>;
  };
  return { h, hello };
}

describe('the scope walk of a push, reused by its commit', () => {
  it('SCOPE-12: ops of one page on one record build on each other, as the walk applied them', async () => {
    const { h, hello } = await scopedHub();
    const push = await hello('a');
    await expect(push([write('a', 1, 10, { $type: 'A', x: 1 }), set('a', 2, 11, { y: 2 }), set('a', 3, 12, { x: 3 })])).resolves.toMatchObject({ applied: 3, outOfScope: 0 });
    expect(await h.s.get('r')).toMatchObject({ $type: 'A', x: 3, y: 2 });
    await h.s.close();
  });

  it('SCOPE-12 GUAR-16: a record another push changed while the page waited in beforeApply is applied to as it stands then', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting!: () => void;
    const held = new Promise<void>((resolve) => (waiting = resolve));
    const { h, hello } = await scopedHub(async (op) => {
      if (op.origin === 'a') { waiting(); await gate; }
      return true;
    });
    const [a, b] = [await hello('a'), await hello('b')];
    const first = a([set('a', 1, 10, { $type: 'A', x: 1 })]);
    await held;
    // b's write, newer, lands while a's page (walked on no record) waits: a's older set must lose to it.
    await expect(b([write('b', 1, 20, { $type: 'A', y: 2 })])).resolves.toMatchObject({ applied: 1 });
    release();
    await expect(first).resolves.toMatchObject({ applied: 1 });
    const r = await h.s.get('r');
    expect(r).toMatchObject({ $type: 'A', y: 2 });
    expect(r).not.toHaveProperty('x');
    await h.s.close();
  });
});
