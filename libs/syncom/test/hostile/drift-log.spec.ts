import { createSchema, type Storage } from '../../src';
import { buildNoteClass } from '../schema/fixtures';
import { closeAll, hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

/**
 * An open hub is greeted by anyone, as often as they like, under any node id:
 * a hello whose schema drifts from the hub's wrote one warning line each, so
 * a client could fill the hub's log at the rate of its hellos. A drift is now
 * warned of once per peer, version and hash in ten minutes, at most a few
 * distinct ones at a time; the lines held back are counted in the next one.
 * The schema event still fires at every hello (SCHEMA-5).
 */

const MINUTE = 60_000;
const hostSchema = { version: 4, types: { Note: buildNoteClass() } };

describe('hostile: schema drift warnings at a hub anyone may greet', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => { warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined); });
  afterEach(() => warn.mockRestore());

  const drifting = (hash: string, node?: string) => ({ token: 't', schema: { version: 4, hash }, ...(node ? { node } : {}) });
  const lines = () => warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('schema drift'));

  async function setup() {
    const clock = { t: 1_000_000 };
    const h = await hub({}, { schema: hostSchema, now: () => clock.t });
    const p = await node();
    const drifts: unknown[] = [];
    h.s.on('schema', (e) => drifts.push(e));
    return { clock, h, p, drifts };
  }

  it('SCHEMA-5 HOST-12: a hundred hellos of one drifting peer write one line; the schema event still fires for each', async () => {
    const { h, p, drifts } = await setup();
    for (let i = 0; i < 100; i++) await greet(h.unit, p, ['*'], drifting('other'));
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toContain(JSON.stringify(p.id));
    expect(drifts).toHaveLength(100);
    expect(drifts[99]).toEqual({ kind: 'drift', peer: p.id, version: 4, hash: 'other', local: createSchema(hostSchema).info() });
    await closeAll(p, h.s);
  });

  it('SCHEMA-5: the same drift is warned of again ten minutes on; another hash of the peer is a line of its own, counting the lines held back before it', async () => {
    const { clock, h, p } = await setup();
    for (let i = 0; i < 10; i++) await greet(h.unit, p, ['*'], drifting('other'));
    clock.t += 10 * MINUTE - 1;
    await greet(h.unit, p, ['*'], drifting('other'));
    expect(lines()).toHaveLength(1);
    await greet(h.unit, p, ['*'], drifting('third'));
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toContain('hash "third"');
    expect(lines()[1]).toContain('; 10 drift warnings held back since the last');
    clock.t += 1;
    await greet(h.unit, p, ['*'], drifting('other'));
    await greet(h.unit, p, ['*'], drifting('other'));
    expect(lines()).toHaveLength(3);
    expect(lines()[2]).toContain('hash "other"');
    expect(lines()[2]).not.toContain('held back');
    await closeAll(p, h.s);
  });

  it('SCHEMA-5 HOST-12: hellos under a thousand made-up node ids write at most 16 lines in ten minutes, the rest counted in the next', async () => {
    const { clock, h, p } = await setup();
    const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `made-up-${from + i}`);
    for (const id of ids(1000)) await greet(h.unit, p, ['*'], drifting('other', id));
    const first = lines().length;
    expect(first).toBeLessThanOrEqual(16);
    clock.t += 10 * MINUTE;
    for (const id of ids(1000, 1000)) await greet(h.unit, p, ['*'], drifting('other', id));
    expect(lines().length - first).toBeLessThanOrEqual(16);
    expect(lines()[first]).toContain(`${1000 - first} drift warnings held back`);
    await closeAll(p, h.s);
  });
});
