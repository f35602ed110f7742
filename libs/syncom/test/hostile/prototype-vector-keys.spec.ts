import { createMemoryLink, type SyncomError } from '../../src';
import type { HostUnit } from '../../src/link';
import { checkShape, type Op } from '../../src/op';
import { isVector } from '../../src/op/shape';
import { takePushAnswer } from '../../src/sync/dial/dialer-push';
import { checkHello, checkHelloAnswer } from '../../src/sync/protocol/hello';
import { readSnapshotPage } from '../../src/sync/protocol/snapshot-page';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';

/**
 * No op runs in a stream whose origin is the name of an Object.prototype
 * member (op/check.ts): such an origin reads as that member where vectors
 * are plain objects. A host's word on vectors (a hello answer, a snapshot
 * page, a push answer) named such streams all the same, past checks that
 * refused `__proto__` alone (or `constructor` and `prototype` too): a
 * snapshot page's vector was adopted as a granted advance, and its
 * `toString` key became a count in this node's vector.
 */

const NAMES = ['toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'constructor', '__proto__'];
/** A vector of one honest stream and `key`, its keys own ones (as JSON.parse makes them). */
const vectorWith = (key: string): Record<string, number> => JSON.parse(`{"n1":3,${JSON.stringify(key)}:5}`) as Record<string, number>;

/** A unit whose first snapshot page's vector also names `key`. */
function naming(unit: HostUnit, key: string): HostUnit {
  return {
    access: unit.access,
    async call(m, args, ctx) {
      const ans = await unit.call(m, args, ctx);
      if (m !== 'snapshot') return ans;
      const text = JSON.stringify(ans).replace('"vector":{', `"vector":{${JSON.stringify(key)}:5,`);
      return JSON.parse(text) as unknown;
    },
    subscribe: (m, a, c, o) => unit.subscribe(m, a, c, o),
    stream: (id, c) => unit.stream(id, c),
    disconnect: (c) => unit.disconnect(c),
  };
}

describe('hostile host: vector keys named like Object.prototype members', () => {
  it.each(NAMES.flatMap((n) => [n, `${n}@a`]))('GUAR-3 PROTO-4 BOOT-5: a version vector naming %s is none, in a hello, a hello answer, a snapshot page and an advance op alike', (key) => {
    const vector = vectorWith(key);
    expect(isVector(vector)).toBe(false);
    expect(readSnapshotPage({ token: 'tok', next: null, total: 0, entries: [], vector }, 0)).toMatchObject({ ok: false, code: 'PAGE_FAILED' });
    const hello = { node: 'n', vector, epoch: 'e', schema: null };
    expect(() => checkHello(hello)).toThrow(expect.objectContaining({ code: 'BAD_HELLO' }) as Error);
    expect(() => checkHelloAnswer(hello)).toThrow(expect.objectContaining({ code: 'BAD_HELLO' }) as Error);
    const advance = { origin: 'n1', seq: 1, ts: 1, type: 'advance', id: 'h', from: 'h', vector } as Op;
    expect(checkShape(advance)).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
  });

  it.each(['n1', 'n1@a', 'n1<h', 'n1@a<h', 'tostring', 'a@toString'])('GUAR-3: a vector key %s whose origin is no such name stays a key', (key) => {
    expect(isVector(vectorWith(key))).toBe(true);
  });

  it.each(NAMES)('PROTO-5: a push answer\'s count for %s is not taken into the host\'s vector', (key) => {
    const hv: Record<string, number> = {};
    expect(takePushAnswer({ id: 'me', vector: {} }, hv, {}, vectorWith(key))).toEqual({ n1: 3 });
    expect(Object.keys(hv)).toEqual(['n1']);
  });

  it.each(['toString', 'hasOwnProperty@a', 'valueOf'])('BOOT-5: a snapshot vector naming %s is refused, not adopted into this node\'s vector', async (key) => {
    const scope = (_id: string, data: Record<string, unknown>) => (typeof data.team === 'string' ? data.team : '*');
    const h = await hub({}, { sync: { scope } });
    await h.s.set('one', { team: 'a' });
    const d = await node({ sync: { connect: () => createMemoryLink(naming(h.unit, key)), antiEntropyInterval: 0, scope } });
    const errors: SyncomError[] = [];
    // Settled by the bootstrap taking the page (as it did) or by its refusal.
    const settled = new Promise<void>((resolve) => {
      d.sync.on('error', (e) => { errors.push(e); resolve(); });
      d.sync.on('bootstrap', () => resolve());
    });
    await d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['a'] });
    await settled;
    await d.sync.stop();
    await internals(d).committer.idle();
    expect(Object.keys(d.replica.vector).filter((k) => k.startsWith(key.replace(/@.*/, '')))).toEqual([]);
    expect(internals(d).log.read(0).filter((e) => e.op.type === 'advance')).toEqual([]);
    expect(errors[0]).toMatchObject({ code: 'PAGE_FAILED' });
    await closeAll(d, h.s);
  });
});
