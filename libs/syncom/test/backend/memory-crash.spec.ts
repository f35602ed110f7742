import { createMemoryBackend } from '../../src/backend';
import type { CrashDamage, MemoryBackend } from '../../src/backend';

const OLD = 'old durable content';
const NEW = 'the new content, not yet synced';

/** durable 'kept', a durable 'old' rewritten without sync, a never-synced 'fresh', an unsynced removal. */
async function pending(seed = 1): Promise<MemoryBackend> {
  const disk = createMemoryBackend({ seed });
  await disk.write('kept', 'k', { durable: true });
  await disk.write('old', OLD, { durable: true });
  await disk.write('old', NEW);
  await disk.write('fresh', NEW);
  await disk.write('gone', 'g', { durable: true });
  await disk.remove('gone');
  return disk;
}

const content = (disk: MemoryBackend) => Object.fromEntries(disk.files());

describe('memory backend: crash damage', () => {
  it("'none' (a process crash) keeps everything current", async () => {
    const after = (await pending()).crash();
    expect(content(after)).toEqual({ fresh: NEW, kept: 'k', old: NEW });
  });

  it("GUAR-17: 'lost' keeps only durable content and undoes an unsynced removal", async () => {
    const after = (await pending()).crash('lost');
    expect(content(after)).toEqual({ gone: 'g', kept: 'k', old: OLD });
  });

  it('marks the crashed backend dead and makes what survived durable', async () => {
    const disk = await pending();
    const after = disk.crash('lost');
    await expect(disk.read('kept')).rejects.toMatchObject({ code: 'ECRASH' });
    expect(content(after.crash('lost'))).toEqual(content(after));
  });

  it("'torn' leaves a strict prefix of the new content, the same for the same seed", async () => {
    const after = content((await pending(7)).crash('torn'));
    for (const name of ['old', 'fresh']) {
      expect(after[name]?.length).toBeLessThan(NEW.length);
      expect(NEW.startsWith(after[name] ?? 'x')).toBe(true);
    }
    expect(after.gone).toBe('g');
    expect(content((await pending(7)).crash('torn'))).toEqual(after);
    expect(content((await pending(8)).crash('torn'))).not.toEqual(after);
  });

  it("GUAR-20: 'torn' after an in-place overwrite leaves the new prefix over the old bytes", async () => {
    const disk = createMemoryBackend({ seed: 3 });
    await disk.write('log', 'o'.repeat(40), { durable: true });
    await disk.overwrite('log', 'n'.repeat(30));
    const torn = (await disk.crash('torn').read('log')) ?? '';
    expect(torn).toMatch(/^n*o+$/);
    expect(torn).toHaveLength(40);
    expect(torn).not.toBe('o'.repeat(40));
  });

  it("'zeroed' keeps the length with a tail of NUL characters", async () => {
    const after = content((await pending(5)).crash('zeroed'));
    for (const name of ['old', 'fresh']) {
      const text = after[name] ?? '';
      expect(text).toHaveLength(NEW.length);
      const cut = text.indexOf('\0');
      expect(cut).toBeGreaterThanOrEqual(0);
      expect(text.slice(0, cut)).toBe(NEW.slice(0, cut));
      expect(text.slice(cut)).toBe('\0'.repeat(NEW.length - cut));
    }
    expect(after.kept).toBe('k');
  });

  it("'reordered' loses a random subset of pending writes and keeps the rest", async () => {
    const run = async (seed: number) => {
      const disk = createMemoryBackend({ seed });
      for (let i = 0; i < 20; i++) await disk.write(`f${i}`, `old ${i}`, { durable: true });
      for (let i = 0; i < 20; i++) await disk.write(`f${i}`, `new ${i}`);
      return content(disk.crash('reordered'));
    };
    const after = await run(11);
    for (let i = 0; i < 20; i++) expect([`old ${i}`, `new ${i}`]).toContain(after[`f${i}`]);
    const kept = Object.values(after).filter((t) => t.startsWith('new')).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(20);
    expect(await run(11)).toEqual(after);
  });

  it('takes the seed from crash() over the option', async () => {
    const damage: CrashDamage = 'torn';
    const a = content((await pending(1)).crash(damage, 99));
    expect(content((await pending(2)).crash(damage, 99))).toEqual(a);
  });

  it('applies damage after a crashAt: the op that crashed never happened', async () => {
    const disk = createMemoryBackend();
    await disk.write('a', 'durable', { durable: true });
    await disk.write('b', 'pending');
    disk.crashAt(1);
    await expect(disk.write('a', 'never')).rejects.toMatchObject({ code: 'ECRASH' });
    expect(content(disk.crash('lost'))).toEqual({ a: 'durable' });
  });
});
