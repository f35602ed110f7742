/** Connects of one peer hub logged in full within a minute; past them its lines are counted, not logged. */
export const FLAPS_LOGGED = 3;
/** The window FLAPS_LOGGED counts in. */
export const FLAP_WINDOW_MS = 60_000;

interface Flaps {
  /** When the window began (the first connect logged in it). */
  since: number;
  connects: number;
  /** Lines held back in this window. */
  held: number;
}

/**
 * Which of a peer hub's connected and disconnected lines to log. A peer hub
 * that answers hello and drops the connection at once (a broken one, or a
 * hostile one) was dialed again after about a second, and had the hub log
 * two lines a second for as long as it went on; the link now dials it backed
 * off (docs/replication.md, The link contract), six times in its first
 * minute and then about once a minute, and the sampling stays for what is
 * left. Each url logs its first
 * FLAPS_LOGGED connects of a minute and their disconnects in full, then one
 * line saying the rest of the minute's are held back; the first line logged
 * after the minute says how many were.
 */
export class PeerFlaps {
  private readonly byUrl = new Map<string, Flaps>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * What to log for a connect (connected: true) or a disconnect of `url`
   * (logged as `label`) whose line is `line`: none while held back.
   */
  lines(url: string, label: string, connected: boolean, line: string): string[] {
    const t = this.now();
    let f = this.byUrl.get(url);
    let note = '';
    if (f && t - f.since >= FLAP_WINDOW_MS) {
      if (f.held > 0) note = ` (${f.held} line${f.held === 1 ? '' : 's'} of it held back in the minute from ${new Date(f.since).toISOString()})`;
      this.byUrl.delete(url);
      f = undefined;
    }
    if (connected) {
      if (!f) this.byUrl.set(url, (f = { since: t, connects: 0, held: 0 }));
      f.connects++;
    }
    if (!f || f.connects <= FLAPS_LOGGED) return [line + note];
    if (f.held++ > 0) return [];
    return [`peer hub ${label} connected ${f.connects} times within a minute (it drops the connection after hello): its connected and disconnected lines are held back until the minute is over`];
  }

  /** Forget `url` (removed from the peers). */
  forget(url: string): void {
    this.byUrl.delete(url);
  }
}
