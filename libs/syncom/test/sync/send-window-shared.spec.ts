import { ByteBudget, SendWindow } from '../../src/sync/protocol/frames';

describe('a frame shared by several connections counts once in the unit budget', () => {
  it('each window counts it fully; the budget once while any slot holds it; the last release or close gives it back', async () => {
    const budget = new ByteBudget(1000);
    const [a, b, c] = [new SendWindow(16, { budget }), new SendWindow(16, { budget }), new SendWindow(16, { budget })];
    const page = {};
    const slots = await Promise.all([a, b, c].map((w) => w.acquire()));
    for (const s of slots) s?.charge(100, page);
    const own = await a.acquire();
    own?.charge(30);
    expect([a.inFlightBytes, b.inFlightBytes, c.inFlightBytes]).toEqual([130, 100, 100]);
    expect(budget.inFlight).toBe(130);
    slots[0]?.release();
    slots[0]?.release();
    expect(budget.inFlight).toBe(130);
    // A closed link gives back what it held: the shared frame stays counted for the slot still out.
    b.close();
    expect(budget.inFlight).toBe(130);
    slots[2]?.release();
    expect(budget.inFlight).toBe(30);
    own?.release();
    expect([budget.inFlight, a.inFlightBytes, b.inFlightBytes, c.inFlightBytes]).toEqual([0, 0, 0, 0]);
  });

  it('a slot charged twice for a shared frame counts the second charge as its own', async () => {
    const budget = new ByteBudget(1000);
    const w = new SendWindow(16, { budget });
    const key = {};
    const s = await w.acquire();
    s?.charge(100, key);
    s?.charge(20, key);
    expect([budget.inFlight, w.inFlightBytes]).toEqual([120, 120]);
    w.close();
    expect(budget.inFlight).toBe(0);
  });
});
