import { ByteBudget, SendWindow } from '../../src/sync/protocol/frames';

/** Whether a promise settled by the next macrotask. */
async function settled<T>(p: Promise<T>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('send windows count bytes against a shared budget', () => {
  it('past the budget a window with a frame out waits; one with none out still gets one; acks wake waiters in order', async () => {
    const budget = new ByteBudget(100);
    const idle = new SendWindow(16, { budget });
    const honest = new SendWindow(16, { budget });
    const a = await idle.acquire();
    a?.charge(60);
    const b = await idle.acquire();
    b?.charge(60);
    expect([budget.inFlight, idle.inFlightBytes]).toEqual([120, 120]);
    const blocked = idle.acquire();
    expect(await settled(blocked)).toBe(false);
    const first = await honest.acquire();
    first?.charge(50);
    const second = honest.acquire();
    expect(await settled(second)).toBe(false);
    // The honest window's ack serves its own next frame at once: it has none out.
    first?.release();
    expect(await settled(second)).toBe(true);
    (await second)?.charge(10);
    expect(await settled(blocked)).toBe(false);
    a?.release();
    b?.release();
    expect(await settled(blocked)).toBe(true);
    expect(budget.inFlight).toBe(10);
  });

  it('a window over its own byte bound waits for its acks; close gives its bytes back to the budget', async () => {
    const budget = new ByteBudget(1000);
    const w = new SendWindow(16, { maxBytes: 100, budget });
    const a = await w.acquire();
    a?.charge(150);
    const next = w.acquire();
    expect(await settled(next)).toBe(false);
    a?.charge(Number.NaN);
    expect(w.inFlightBytes).toBe(150);
    w.close();
    expect(await next).toBeUndefined();
    expect([budget.inFlight, w.inFlightBytes]).toEqual([0, 0]);
    a?.release();
    expect(budget.inFlight).toBe(0);
  });

  it('PROTO-6 a sender may promise its next frame (a page\'s `more`) only with half the window, its bytes and the budget free', async () => {
    const budget = new ByteBudget(100);
    const w = new SendWindow(4, { maxBytes: 60, budget });
    const other = new SendWindow(16, { budget });
    expect(w.mayPromise).toBe(true);
    const a = await w.acquire();
    a?.charge(10);
    const b = await w.acquire();
    b?.charge(10);
    expect(w.mayPromise).toBe(true);
    // A third frame out: past half the window's 4.
    const c = await w.acquire();
    expect(w.mayPromise).toBe(false);
    c?.release();
    // Past half its own bytes (60).
    b?.charge(15);
    expect(w.mayPromise).toBe(false);
    b?.release();
    // The unit's budget: 50 of 100 out is still half, 51 is past it.
    const o = await other.acquire();
    o?.charge(40);
    expect([budget.inFlight, w.mayPromise]).toEqual([50, true]);
    const p = await other.acquire();
    p?.charge(1);
    expect(w.mayPromise).toBe(false);
    o?.release();
    p?.release();
    expect(w.mayPromise).toBe(true);
    w.close();
    expect(w.mayPromise).toBe(false);
  });

  it('a frame shared by several windows counts once in the budget, until the last of them acks it or closes', async () => {
    const budget = new ByteBudget(100);
    const [x, y, z] = [new SendWindow(4, { budget }), new SendWindow(4, { budget }), new SendWindow(4, { budget })];
    const page = {};
    const slots = await Promise.all([x, y, z].map((w) => w.acquire()));
    for (const s of slots) s?.charge(60, page);
    // Each window counts the frame for its connection; the unit holds its bytes once.
    expect([budget.inFlight, x.inFlightBytes, y.inFlightBytes]).toEqual([60, 60, 60]);
    // An unshared frame beside it counts in full.
    const own = await x.acquire();
    own?.charge(30);
    expect(budget.inFlight).toBe(90);
    slots[0]?.release();
    slots[0]?.release();
    y.close();
    expect(budget.inFlight).toBe(90);
    // The last holder lets go: the shared bytes come back, and a window blocked on the budget is served.
    own?.release();
    const more = await z.acquire();
    more?.charge(50);
    const blocked = z.acquire();
    expect(await settled(blocked)).toBe(false);
    slots[2]?.release();
    expect(await settled(blocked)).toBe(true);
    expect(budget.inFlight).toBe(50);
    more?.release();
    (await blocked)?.release();
    expect(budget.inFlight).toBe(0);
  });
});
