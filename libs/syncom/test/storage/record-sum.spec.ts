import { createMemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src';
import { summed, unsummed } from '../../src/storage/record-sum';
import { freshBackend, openOn, T0 } from '../log/helpers';

/**
 * Record files carry the sum of their elements (store format 2, docs/guarantees.md, "A store damaged
 * after the fact"): a value changed inside one that keeps its JSON valid is seen at open, and its
 * records come back from the log, as a file that cannot be read does.
 */
describe('a record file\'s sum', () => {
  it('GUAR-7: a record file\'s text is its elements then their sum; the sum taken off gives the elements back, and one that fails gives nothing', () => {
    for (const text of ['[]', '[{"id":"a"}]', '[{"id":"a"},{"id":"b","v":"x,{\\"sum\\":"}]']) {
      const written = summed(text);
      expect(written).toMatch(/,?\{"sum":"[A-Za-z0-9_-]{43}"\}\]$/);
      expect(JSON.parse(written)).toHaveLength((JSON.parse(text) as unknown[]).length + 1);
      expect(unsummed(written)).toBe(text);
      // A changed element, or a changed sum.
      if (text !== '[]') expect(unsummed(written.replace('"a"', '"c"'))).toBeUndefined();
      expect(unsummed(written.replace(/"sum":"./, '"sum":"!'))).toBeUndefined();
    }
    // A file written before sums (store format 1) is its elements as read.
    expect(unsummed('[{"id":"a"}]')).toBe('[{"id":"a"}]');
    expect(unsummed(undefined)).toBeUndefined();
  });

  it('GUAR-7 LOG-2: every one-character change of a record file\'s digits and lowercase letters that leaves it valid JSON is reported OP_UNREADABLE naming it, and its record comes back from the log', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('doc', { title: 'kept in a record file', n: 4096, tags: ['x9'] });
    const want = await s.get('doc');
    await s.close();
    const files = [...b.files()].filter(([p]) => /^records\/\d+\.json$/.test(p));
    expect(files).toHaveLength(1);
    const [[path, text]] = files;
    let changes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      const other = /[0-8]/.test(c) ? String(Number(c) + 1) : c === '9' ? '0' : /[a-y]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 1) : c === 'z' ? 'a' : undefined;
      if (other === undefined) continue;
      const changed = text.slice(0, i) + other + text.slice(i + 1);
      try { JSON.parse(changed); } catch { continue; }
      changes++;
      const d = createMemoryBackend({ from: b.snapshot() });
      await d.write(path, changed);
      const r = await openOn(d, { now: () => T0 });
      const errors: SyncomError[] = [];
      r.on('error', (e) => void errors.push(e));
      await new Promise((resolve) => setImmediate(resolve));
      expect([i, errors.map((e) => [e.code, e.file])]).toEqual([i, [['OP_UNREADABLE', path]]]);
      expect(await r.get('doc')).toEqual(want);
      await r.close();
    }
    expect(changes).toBeGreaterThan(100);
  });
});
