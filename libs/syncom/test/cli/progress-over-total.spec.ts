import { createProgress } from '../../src/cli/progress';

describe('a progress bar told more than its total', () => {
  it('BOOT-1: `syncom pull` draws a host\'s snapshot total as the bar\'s; a host sending more records than it named does not make the redraw throw (RangeError: Invalid count value)', () => {
    const clock = { t: 0 };
    const s = { text: '', isTTY: true, write(t: string) { this.text += t; return true; } };
    // The first page said 1 record; 30 came.
    const p = createProgress(s, 'bootstrap', 1, { now: () => clock.t, redrawMs: 50 });
    clock.t += 100;
    expect(() => p.update(30)).not.toThrow();
    expect(s.text).toContain('bootstrap [##############################]');
    expect(() => p.finish()).not.toThrow();
  });
});
