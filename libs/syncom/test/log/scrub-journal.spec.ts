import { createMemoryBackend } from '../../src/backend';
import { open } from '../../src';
import { journalFault, parseScrubJournal, scrubJournalText } from '../../src/log/scrub-journal';
import { internals } from '../../src/testing/internals';
import { T0 } from './helpers';

/** The lines of log/open/1.json after four awaited writes with log.lines (one open file, nothing sealed before close). */
async function fourLines(): Promise<{ text: string; lines: string[] }> {
  const b = createMemoryBackend();
  const s = await open({ path: 'j', backend: b, now: () => T0, sync: { log: { lines: true, rollAfter: 64 } } });
  for (let i = 0; i < 4; i++) await s.insert({ i });
  await internals(s).committer.idle();
  const text = b.files().get('log/open/1.json') as string;
  await s.close();
  return { text, lines: text.split('\n').filter((l) => l !== '') };
}

describe('the scrub journal of an open file (log.lines)', () => {
  it('GUAR-21 GUAR-22: a rewrite that starts past the file\'s position (a seal took its first batches) is finished, not refused; one that starts before it, or past it over batches no segment holds, is refused', async () => {
    // A seal cut inside an open file leaves it holding sealed batches first; a purge's scrub rewrites it
    // without them. Its journal was refused at the next open, and a torn rewrite left a hole of acknowledged batches.
    const { text, lines } = await fourLines();
    const sealed = { segments: [{ from: 1, to: 2, minTs: T0, maxTs: T0, chain: '', hashed: true }], open: new Set([1, 3]) };
    const tail = `${lines.slice(2).join('\n')}\n`;
    const journal = (path: string, t: string) => parseScrubJournal(scrubJournalText(path, t))!;
    expect(journalFault(journal('log/open/1.json', tail), sealed, text)).toBeUndefined();
    expect(journalFault(journal('log/open/1.json', text), sealed, text)).toBeUndefined();
    // Past the position over batches no segment holds: they would be lost.
    expect(journalFault(journal('log/open/1.json', tail), { ...sealed, segments: [] }, text)).toBe('its text is not that of log/open/1.json');
    expect(journalFault(journal('log/open/3.json', text), sealed, tail)).toBe('its text is not that of log/open/3.json');
  });
});
