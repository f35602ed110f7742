import { createHash } from 'node:crypto';
import { createMemoryBackend, open } from '../../src';
import { logOps, node, ship } from '../storage/helpers';

describe('the audit chain', () => {
  it('GUAR-23: each applied batch is one block chained to the last; converged nodes hold the same records and different chains', async () => {
    const a = await node(1_000);
    const b = await node(1_000);
    const c = await node(1_000);
    await a.s.set('r', { a: 1 });
    await b.s.set('q', { b: 1 });
    await ship(a.s, c.s);
    await ship(b.s, c.s);
    const d = await node(1_000);
    await ship(b.s, d.s);
    await ship(a.s, d.s);
    expect(await c.s.list()).toEqual(await d.s.list());
    expect(c.s.chain()).not.toBe(d.s.chain());
    expect(c.s.chain()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('GUAR-23 BOOT-4: the head is SHA-256 over the previous head and the batch as appended, and survives a reopen and sealing', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'c', backend, sync: { log: { rollAfter: 2 } } });
    await s.insert({ x: 1 });
    const first = JSON.parse(backend.files().get('log/open/1.json') as string) as { chain: string; ops: unknown[] };
    const expected = createHash('sha256').update('').update('\n').update(JSON.stringify(first.ops)).digest('base64url');
    expect(first.chain).toBe(expected);
    expect(s.chain()).toBe(expected);
    await Promise.all([s.insert({ x: 2 }), s.insert({ x: 3 })]);
    await s.insert({ x: 4 });
    const head = s.chain();
    await s.close();
    const again = await open({ path: 'c', backend });
    expect(again.chain()).toBe(head);
    expect(logOps(again)).toHaveLength(4);
    await again.insert({ x: 5 });
    expect(again.chain()).not.toBe(head);
    await again.close();
  });
});
