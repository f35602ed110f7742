/**
 * `text` with each of `tokens` written `<token>`: wherever it occurs when it
 * is at least 8 characters long (`Bearer<the token>`, a token glued to the
 * words around it, still carries the secret whole), and a shorter one only
 * where it stands alone (not inside a longer word: it would otherwise eat
 * the letters of every word). A host words its refusals as it likes and may quote the token a
 * dialer sent it; what syncom exports of such a message (a span's exception)
 * goes wherever the application's traces go. With `max`, the result is cut
 * to `max` characters, hidden first: cut first, a token the cut ended inside
 * was no longer found and all but its end went out (only `max` and the
 * longest token's length of `text` are read).
 */
export function hideTokens(text: string, tokens: readonly string[], max?: number): string {
  if (max !== undefined) return hideTokens(text.slice(0, max + Math.max(0, ...tokens.map((t) => t.length))), tokens).slice(0, max);
  let out = text;
  for (const token of tokens) {
    if (!token) continue;
    const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const alone = token.length < LONG_TOKEN;
    out = out.replace(new RegExp(alone ? `(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])` : escaped, 'g'), '<token>');
  }
  return out;
}

/** From this length on, a token is hidden wherever it occurs, inside a word too (see hideTokens). */
const LONG_TOKEN = 8;
