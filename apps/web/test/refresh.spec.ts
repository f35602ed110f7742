import type { Storage } from 'syncom/browser';
import { NoteIndex, type Note } from '../src/notes';
import { Refresher } from '../src/refresh';

type Rec = { id: string; data: Record<string, unknown>; meta: { ts: number } };

/** A store of notes whose list() and record() fail while `failing` is above 0 (each call takes one). */
function fakeStorage(notes: Rec[]) {
  const s = {
    failing: 0,
    notes,
    async list(): Promise<Rec[]> {
      if (s.failing > 0 && s.failing--) throw Object.assign(new Error('the disk went away'), { code: 'IO_ERROR' });
      return [...s.notes];
    },
    async record(id: string): Promise<Rec | null> {
      if (s.failing > 0 && s.failing--) throw Object.assign(new Error('the disk went away'), { code: 'IO_ERROR' });
      return s.notes.find((n) => n.id === id) ?? null;
    },
  };
  return s;
}

const note = (id: string, ts: number): Rec => ({ id, data: { $type: 'Note', title: id }, meta: { ts } });

/** Lets every pending promise callback run (the fake store answers at once). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A Refresher over a NoteIndex of `storage`, with a clock the test advances by hand. */
function refresher(storage: ReturnType<typeof fakeStorage>) {
  const shown: string[][] = [];
  const failures: unknown[] = [];
  let recovered = 0;
  const pauses: { ms: number; end: () => void }[] = [];
  const index = new NoteIndex(storage as unknown as Storage);
  const r = new Refresher<Note[]>({
    read: () => index.read(),
    show: (notes) => void shown.push(notes.map((n) => n.id)),
    failed: (e) => void failures.push(e),
    recovered: () => void recovered++,
    pause: (ms) => new Promise<void>((end) => void pauses.push({ ms, end })),
  });
  return { r, index, shown, failures, pauses, recovered: () => recovered };
}

describe('apps/web: the refresh loop (re-reads the notes after changes)', () => {
  it('a read that fails is reported and retried after a pause, with no change to prompt it; the next read shows the notes', async () => {
    const storage = fakeStorage([note('a', 1)]);
    storage.failing = 1;
    const t = refresher(storage);
    t.r.request();
    await settle();
    expect(t.failures).toHaveLength(1);
    expect(t.shown).toEqual([]);
    // The retry waits for the clock, not for a change that may never come.
    expect(t.pauses).toHaveLength(1);
    t.pauses[0].end();
    await settle();
    expect(t.shown).toEqual([['a']]);
    expect(t.recovered()).toBe(1);
  });

  it('a change during a failed read is not lost: the retry reads it', async () => {
    const storage = fakeStorage([note('a', 1)]);
    const t = refresher(storage);
    t.r.request();
    await settle();
    expect(t.shown).toEqual([['a']]);

    storage.failing = 1;
    storage.notes.push(note('b', 2));
    t.index.touch('b');
    t.r.request();
    // Asked again while that read fails.
    t.r.request();
    await settle();
    expect(t.failures).toHaveLength(1);
    t.pauses.at(-1)!.end();
    await settle();
    expect(t.shown.at(-1)).toEqual(['b', 'a']);
  });

  it('a change during the pause after a failure reads at once; the pause grows while reads keep failing, and is capped', async () => {
    const storage = fakeStorage([note('a', 1)]);
    storage.failing = 100;
    const t = refresher(storage);
    t.r.request();
    await settle();
    for (let i = 0; i < 8; i++) {
      t.pauses.at(-1)!.end();
      await settle();
    }
    const waits = t.pauses.map((p) => p.ms);
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(waits[0]).toBeGreaterThanOrEqual(500);
    expect(Math.max(...waits)).toBeLessThanOrEqual(30_000);
    expect(t.failures).toHaveLength(9);

    storage.failing = 0;
    const before = t.pauses.length;
    t.r.request();
    await settle();
    expect(t.shown).toEqual([['a']]);
    // Woken by the change, not by the clock: no further pause was asked for.
    expect(t.pauses).toHaveLength(before);
    expect(t.recovered()).toBe(1);
  });
});
