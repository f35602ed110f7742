import { FLAP_WINDOW_MS, FLAPS_LOGGED, PeerFlaps } from '../src/peer-flaps';

describe('apps/hub: a peer hub that drops each connection after hello', () => {
  it('logs its first connects of a minute and their disconnects, one line that holds the rest back, and the count held with the next line logged', () => {
    let now = Date.UTC(2026, 0, 1);
    const flaps = new PeerFlaps(() => now);
    const logged: string[] = [];
    const cycle = (url = 'u') => {
      logged.push(...flaps.lines(url, url, true, `${url} connected`), ...flaps.lines(url, url, false, `${url} disconnected`));
      now += 1_000;
    };
    // A minute of a hostile hub redialed about once a second: 120 lines before, now FLAPS_LOGGED pairs and one more.
    for (let i = 0; i < 59; i++) cycle();
    expect(logged).toHaveLength(2 * FLAPS_LOGGED + 1);
    expect(logged[2 * FLAPS_LOGGED]).toMatch(/^peer hub u connected 4 times within a minute .*held back until the minute is over$/);
    // Another url is its own: logged in full.
    cycle('v');
    expect(logged.at(-1)).toBe('v disconnected');
    // The next minute starts logging again, its first line counting what was held.
    now += FLAP_WINDOW_MS;
    logged.length = 0;
    cycle();
    expect(logged).toEqual([`u connected (${2 * (59 - FLAPS_LOGGED)} lines of it held back in the minute from 2026-01-01T00:00:00.000Z)`, 'u disconnected']);
  });

  it('a connection held past the minute logs its disconnect, with what was held', () => {
    let now = 0;
    const flaps = new PeerFlaps(() => now);
    for (let i = 0; i < FLAPS_LOGGED; i++) flaps.lines('u', 'u', true, 'c'), flaps.lines('u', 'u', false, 'd');
    expect(flaps.lines('u', 'u', true, 'c')).toHaveLength(1);
    now += FLAP_WINDOW_MS;
    expect(flaps.lines('u', 'u', false, 'd')).toEqual(['d (1 line of it held back in the minute from 1970-01-01T00:00:00.000Z)']);
    // An honest peer's reconnects, minutes apart, are all logged.
    for (let i = 0; i < 10; i++) {
      now += FLAP_WINDOW_MS;
      expect([...flaps.lines('u', 'u', true, 'c'), ...flaps.lines('u', 'u', false, 'd')]).toEqual(['c', 'd']);
    }
  });
});
