import { hideTokens } from '../../src';

/**
 * What a log line or a span keeps of a host's words: every registered token
 * as `<token>` (docs/hub-security.md). A long token glued to the words around
 * it is still the whole secret; a short one is hidden only where it stands
 * alone, or it would eat the letters of every word that holds it.
 */
describe('hideTokens', () => {
  const TOKEN = 'tok-SECRET-77ad1e';

  it('hides a token of 8 characters or more wherever it occurs, glued to a word too', () => {
    expect(hideTokens(`Bearer${TOKEN} refused`, [TOKEN])).toBe('Bearer<token> refused');
    expect(hideTokens(`x${TOKEN}y and ${TOKEN}`, [TOKEN])).toBe('x<token>y and <token>');
  });

  it('hides a shorter token only where it stands alone', () => {
    expect(hideTokens('the key abc, then abcdef', ['abc'])).toBe('the key <token>, then abcdef');
  });

  it('cut to max after hiding: a token the cut would end inside is not let out in part', () => {
    expect(hideTokens(`refused: ${TOKEN} is unknown`, [TOKEN], 14)).toBe('refused: <toke');
  });
});
