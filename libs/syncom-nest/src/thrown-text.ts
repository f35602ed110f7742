/**
 * What was thrown, as text for a log: an Error's stack, else `String()` of
 * it. `String()` itself throws on an object with no prototype (or a
 * `toString` that throws), and a log line written in a catch, such as the
 * gateway's exception filter's, must not throw in its turn: under Nest's
 * IoAdapter that error reached no handler and ended the process.
 */
export function thrownText(e: unknown): string {
  try {
    return e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
  } catch {
    return Object.prototype.toString.call(e);
  }
}
