/** The longest scope name, in UTF-16 code units: an op's declared scope, a hello's, a feed's. */
export const MAX_SCOPE_NAME = 128;

/** What a scope name may not hold: '<', and the C0 controls and DEL. */
// eslint-disable-next-line no-control-regex
const UNNAMING = /[<\u0000-\u001f\u007f]/;

/** The most scope names one hello, changes or snapshot call may hand in. */
export const MAX_SCOPE_NAMES = 1024;

/**
 * Whether `x` can name a scope: 1-128 characters, no '<' and no control
 * character (a name is written in log lines, where a newline or an escape
 * would forge or colour one). A stream key is
 * `origin`, `origin@scope`, either followed by `<from` (streamKey), and keyScope
 * reads a key's scope from its first '@' to its first '<': a name holding '<'
 * would read back as a shorter one (`o@a<x` as o's stream of 'a', joined from
 * x), served in scope 'a''s vectors. '@' is allowed (an e-mail address is a
 * fair scope name): an origin holds none, so a key's first '@' ends its origin
 * whatever the scope holds.
 *
 * @example
 * isScopeName('team@example.com'); // true
 * isScopeName('a<x'); // false
 */
export function isScopeName(x: unknown): x is string {
  return typeof x === 'string' && x.length > 0 && x.length <= MAX_SCOPE_NAME && !UNNAMING.test(x);
}
