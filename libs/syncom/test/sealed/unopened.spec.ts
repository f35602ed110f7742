import type { MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src/errors';
import { FLAG_SEALED, generateSealingKeys } from '../../src/op';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { freshBackend, logFile, openOn, T0 } from '../log/helpers';
import { web, withPlatform } from '../platform/with-platform';
import { entriesOf, MARK } from './helpers';

/** Files of a memory backend that hold the text. */
const holding = (b: MemoryBackend, text: string) => [...b.files()].filter(([, c]) => c.includes(text)).map(([p]) => p);

/** Another store's sealing pair put in: what docs/guarantees.md gives to give sealed records up. */
async function replaceSealingPair(b: MemoryBackend): Promise<void> {
  const pair = await generateSealingKeys();
  await b.write('keys/seal-public.pem', pair.publicPem);
  await b.write('keys/seal-private.pem', pair.privatePem);
}

/** A store holding the sealed record 'p' and the plain 'q', closed. */
async function storeWithSealed(): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, { now: () => T0 });
  await s.set('p', { pin: 1 }, { sealed: true });
  await s.set('q', { x: 1 });
  await s.close();
  return b;
}

// The id of a sealed record is in clear beside its box (the record file's { id, sealed }, the log's header):
// a box that no longer opens loses the record, never its seal, so a later write to the id cannot go out in clear.
describe('sealed records whose boxes do not open', () => {
  it('GUAR-19: with the sealing pair replaced, the id stays sealed: a later write to it is sealed, and nothing of it is in clear', async () => {
    const b = await storeWithSealed();
    await replaceSealingPair(b);
    const s = await openOn(b, { now: () => T0 });
    expect(await s.get('p')).toBeUndefined();
    expect(s.isSealed('p')).toBe(true);
    expect(s.isSealed('q')).toBe(false);
    await s.set('p', { pin: MARK });
    await s.update('p', { more: MARK }, { sealed: false });
    expect(entriesOf(s, 'p').map((e) => e.flags & FLAG_SEALED)).toEqual([FLAG_SEALED, FLAG_SEALED]);
    expect(await s.get('p')).toEqual({ pin: MARK, more: MARK });
    await s.close();
    expect(holding(b, MARK)).toEqual([]);
    // Under the new pair the record reads back, and stays sealed.
    const again = await openOn(b, { now: () => T0 });
    expect(again.isSealed('p')).toBe(true);
    expect(await again.get('p')).toEqual({ pin: MARK, more: MARK });
    await again.close();
  });

  it('GUAR-19: a record box and a log box tampered with are OP_UNREADABLE; the id stays sealed, and a write to it never reaches a host', async () => {
    const b = await storeWithSealed();
    // Flip a byte of each box's ciphertext: GCM refuses it.
    const flip = (box: string) => `${box.slice(0, -2)}${box.at(-2) === 'A' ? 'B' : 'A'}${box.at(-1)}`;
    const seg = logFile(b, 'log/seg-1.json');
    const sealedOp = (seg.ops as unknown[][]).find((p) => p[4] === 'p') as unknown[];
    sealedOp[18] = flip(sealedOp[18] as string);
    await b.overwrite('log/seg-1.json', JSON.stringify(seg));
    for (const [path, text] of b.files()) {
      if (!path.startsWith('records/') || !text.includes('"sealed"')) continue;
      const list = JSON.parse(text) as { id: string; sealed?: string }[];
      for (const x of list) if (x.sealed) x.sealed = flip(x.sealed);
      await b.overwrite(path, JSON.stringify(list));
    }
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    const d = await dialer(net, { backend: b, now: () => T0 });
    const errors: SyncomError[] = [];
    d.on('error', (e) => errors.push(e));
    await new Promise((resolve) => setImmediate(resolve));
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(['OP_UNREADABLE']));
    expect(d.isSealed('p')).toBe(true);
    await d.set('p', { pin: MARK });
    await d.set('r', { x: 2 });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(async () => h.s.has('r'), [d, h.s]);
    expect(await h.s.has('p')).toBe(false);
    expect(entriesOf(h.s, 'p')).toEqual([]);
    await closeAll(d, h.s);
    expect(holding(b, MARK)).toEqual([]);
  });

  it('GUAR-19: a store made on Node, opened in a browser: its sealed ids stay sealed there, and a write to one is UNSUPPORTED, not a write in clear', async () => {
    const b = await storeWithSealed();
    await withPlatform(web, async () => {
      const s = await openOn(b, { now: () => T0 });
      expect(s.isSealed('p')).toBe(true);
      await expect(s.set('p', { pin: MARK })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
      await s.set('q', { x: 2 });
      expect(entriesOf(s, 'p').some((e) => !(e.flags & FLAG_SEALED))).toBe(false);
      await s.close();
    });
    expect(holding(b, MARK)).toEqual([]);
    // Back on Node (the platform withPlatform put back), the record is there, sealed, as it was.
    const s = await openOn(b, { now: () => T0 });
    expect(await s.get('p')).toEqual({ pin: 1 });
    expect(await s.get('q')).toEqual({ x: 2 });
    expect(entriesOf(s, 'p').map((e) => e.flags & FLAG_SEALED)).toEqual([FLAG_SEALED]);
    await s.close();
  });
});
