import type { SyncomError } from '../../src';
import type { LogEntry } from '../../src/log/op-log';
import { Reported, SignatureRefusals } from '../../src/sync/dial/dialer-push';
import { closeAll, hub, Net, node, until } from '../sync/helpers';
import { refusingUnit } from './hostile-units';

/**
 * A host that refuses pushed ops for their signatures is reported UNSIGNED
 * (or BAD_SIGNATURE) once per frame start and counts, not at every recovery
 * that pushes the same ops again. Only the last frame's key was kept: a
 * recovery of two frames or more (over pageSize ops) flipped it between its
 * frames, and every push emitted `error` and replaced lastError again.
 */

const URL = 'memory://refusing';
const entry = (origin: string, seq: number) => ({ op: { origin, seq } }) as LogEntry;

describe('hostile host: signature refusals of a recovery of several frames', () => {
  it('SIG-17: SignatureRefusals reports each frame start and counts once, however its frames alternate', () => {
    const r = new SignatureRefusals();
    const a = [entry('n', 1), entry('n', 2)];
    const b = [entry('n', 3)];
    const judged = [a, b, a, b, a].map((f) => r.judge(f, { unsigned: 1 }, URL)?.code);
    expect(judged).toEqual(['UNSIGNED', 'UNSIGNED', undefined, undefined, undefined]);
    // Other counts at the same start are news; so is a forgery.
    expect(r.judge(a, { unsigned: 2 }, URL)?.code).toBe('UNSIGNED');
    expect(r.judge(b, { forged: 1 }, URL)?.code).toBe('BAD_SIGNATURE');
  });

  it('the keys of reported refusals are bounded, the oldest let go', () => {
    const seen = new Reported(2);
    expect(['a', 'b', 'a', 'c', 'b', 'a'].map((k) => seen.first(k))).toEqual([true, true, false, true, false, true]);
  });

  // Frames of 10 ops, each scope's ops a stream of their own: 'A' and 'B' of 10 ops and '*' of 5 make three frames.
  // One frame too: a refusal that was no news read as no refusal, and the peer showed in step while the host lacked the ops.
  it.each([[['A', 'B', '*'], 3], [['*'], 1]])('SIG-17 HOST-16: a host refusing every push of the ops of scopes %j as unsigned is reported once per frame (%i), not again at each sync() that pushes them again, and the peer stays behind', async (scopes, frames) => {
    const h = await hub();
    const unit = refusingUnit(h.unit);
    const net = new Net();
    net.units.set(URL, unit);
    const scope = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');
    const d = await node({ sync: { connect: net.connect, antiEntropyInterval: 0, pageSize: 10, scope } });
    for (const $type of scopes) for (let i = 0; i < ($type === '*' ? 5 : 10); i++) await d.insert($type === '*' ? { i } : { $type, i });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    let answered = 0;
    d.sync.on('sync', (e) => { if (e.pushed > 0) answered++; });
    await d.sync.addNode({ url: URL, token: 't' });
    // The hello's push: frames of 10 ops, each refused.
    await until(() => answered >= frames, [d]);
    expect(errors.map((e) => e.code)).toEqual(Array(frames).fill('UNSIGNED'));
    const last = d.sync.peers()[0].lastError;
    const pushes = unit.pushes;
    await d.sync.sync();
    await d.sync.sync();
    // Both pushed the frames again (the cause may be gone), and neither is news.
    expect(unit.pushes).toBe(pushes + 2 * frames);
    expect(errors).toHaveLength(frames);
    expect(d.sync.peers()[0]).toMatchObject({ behind: true });
    expect(d.sync.peers()[0].lastError).toBe(last);
    await closeAll(d, h.s);
  });
});
