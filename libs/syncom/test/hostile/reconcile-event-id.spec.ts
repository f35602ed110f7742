import type { SyncomError } from '../../src';
import type { SubscribeOptions } from '../../src/link';
import { closeAll, dialer, hub, Net } from '../sync/helpers';
import { feedingUnit, turns } from './hostile-units';

/**
 * An incremental bootstrap resumes the feed from the event id the host's
 * reconciliation start answer names, as a full one does from its snapshot's
 * first page. That id became the cursor as it came, any string: saved with
 * the registry and sent back at each resume, where a changes page's id is
 * held to `<epoch>.<seq>` (test/hostile/hostile-host-loops.spec.ts).
 */

const URL = 'memory://h';

describe('hostile host: a reconciliation start naming an event id that is none', () => {
  it('BOOT-1 BOOT-6 RECON: a megabyte of text as the start answer\'s event id is BAD_ANSWER: not kept as the cursor, saved or sent back; the snapshot is taken instead', async () => {
    const h = await hub();
    await h.s.insert({ at: 'host' });
    const huge = `x.${'9'.repeat(1 << 20)}`;
    const subs: SubscribeOptions[] = [];
    const unit = feedingUnit(h.unit, async (n, o) => {
      subs.push(o);
      // A page gives the dialer a cursor; the host then says its retention passed it, so the dialer catches up.
      if (n === 1) {
        await o.onData({ ops: [] }, 'x.1');
        await o.onData({ bootstrap: true, reason: 'floor' }, undefined);
      }
    });
    unit.call = async (m: string, a: unknown, c: object) => {
      const ans = await h.unit.call(m, a, c);
      return m === 'reconcile' && (a as { start?: boolean }).start ? { ...(ans as object), eventId: huge } : ans;
    };
    const net = new Net();
    net.units.set(URL, unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    // Records here: a caught-up dialer that holds some reconciles rather than taking the whole snapshot.
    await d.insert({ at: 'dialer' });
    const booted = new Promise<{ records: number }>((resolve) => { const off = d.sync.on('bootstrap', (e) => { off(); resolve(e); }); });
    await d.sync.addNode({ url: URL, token: 't' });
    await booted;
    await unit.subscribed(2);
    await turns(10);
    expect(errors.map((e) => e.code)).toContain('BAD_ANSWER');
    const cursor = d.sync.listNodes()[0].cursor;
    expect(cursor).not.toBe(huge);
    expect(cursor?.length ?? 0).toBeLessThanOrEqual(64);
    expect(subs[1].lastEventId).toBe(cursor);
    expect((await d.list()).map((r) => r.data.at).sort()).toEqual(['dialer', 'host']);
    await closeAll(d, h.s);
  });
});
