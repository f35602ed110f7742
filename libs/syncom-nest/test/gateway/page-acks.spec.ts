import { PageAcks } from '../../src/gateway/page-acks';

/** Pages sent through `acks`, each with its ack callback and whether its promise settled. */
function sender(acks: PageAcks) {
  const pages: { ack: () => void; settled: boolean }[] = [];
  const send = () => {
    const page = { ack: () => undefined as void, settled: false };
    pages.push(page);
    void acks.page((ack) => (page.ack = ack)).then(() => (page.settled = true));
    return page;
  };
  return { pages, send };
}

const turns = async () => { for (let i = 0; i < 5; i++) await Promise.resolve(); };

describe('PageAcks: the acks of one feed\'s pages', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('PROTO-6 HOST-4 an ack settles its page; the oldest page out is on the clock from the ack before it, with one timer for the feed', async () => {
    let timedOut = 0;
    const count = { pages: 0 };
    const acks = new PageAcks(100, () => timedOut++, count);
    const { pages, send } = sender(acks);
    send();
    send();
    send();
    expect([acks.size, count.pages, jest.getTimerCount()]).toEqual([3, 3, 1]);
    jest.advanceTimersByTime(80);
    pages[0].ack();
    jest.advanceTimersByTime(80);
    pages[1].ack();
    jest.advanceTimersByTime(80);
    await turns();
    // 240 ms since the first page went, never 100 without an ack: nothing timed out, one page out.
    expect([timedOut, acks.size, count.pages, pages.map((p) => p.settled)]).toEqual([0, 1, 1, [true, true, false]]);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(20);
    await turns();
    expect([timedOut, acks.size, count.pages, pages[2].settled, jest.getTimerCount()]).toEqual([1, 0, 0, true, 0]);
  });

  it('PROTO-6 an ack is cumulative: it settles its page and every earlier one, whose callbacks the socket forgets; a late ack of a covered page does nothing; with nothing out the timer stops', async () => {
    let timedOut = 0;
    const forgotten: number[] = [];
    const count = { pages: 0 };
    const acks = new PageAcks(100, () => timedOut++, count, (id) => forgotten.push(id));
    const pages: { ack: () => void; settled: boolean }[] = [];
    for (let i = 0; i < 4; i++) {
      const page = { ack: () => undefined as void, settled: false };
      pages.push(page);
      void acks.page((ack) => ((page.ack = ack), 10 + i)).then(() => (page.settled = true));
    }
    jest.advanceTimersByTime(60);
    pages[2].ack();
    await turns();
    expect([acks.size, count.pages, pages.map((p) => p.settled), forgotten]).toEqual([1, 1, [true, true, true, false], [10, 11]]);
    // The ack restarted the clock for the page still out: 60 + 60 ms is no timeout.
    jest.advanceTimersByTime(60);
    pages[0].ack();
    pages[2].ack();
    await turns();
    expect([timedOut, acks.size, count.pages]).toEqual([0, 1, 1]);
    pages[3].ack();
    await turns();
    expect([acks.size, count.pages, pages[3].settled]).toEqual([0, 0, true]);
    jest.advanceTimersByTime(1000);
    expect([timedOut, jest.getTimerCount()]).toEqual([0, 0]);
  });

  it('PROTO-6 close() makes the socket forget the callbacks of every page still out', async () => {
    const forgotten: number[] = [];
    const acks = new PageAcks(100, () => undefined, { pages: 0 }, (id) => forgotten.push(id));
    for (let i = 0; i < 3; i++) void acks.page(() => i);
    acks.close();
    await turns();
    expect([acks.size, forgotten]).toEqual([0, [0, 1, 2]]);
  });

  it('PROTO-12 ACK_TIMEOUT is told once however many pages were out; close() lets every page go, and a page after it settles at once', async () => {
    let timedOut = 0;
    const acks = new PageAcks(50, () => timedOut++);
    const { pages, send } = sender(acks);
    for (let i = 0; i < 16; i++) send();
    jest.advanceTimersByTime(10_000);
    await turns();
    expect([timedOut, pages.every((p) => p.settled), acks.size]).toEqual([1, true, 0]);
    const late = send();
    await turns();
    expect([late.settled, acks.size, jest.getTimerCount()]).toEqual([true, 0, 0]);
  });

  it('a send that throws counts as answered (the socket is going: its close ends the feed)', async () => {
    const acks = new PageAcks(50, () => undefined);
    let settled = false;
    void acks.page(() => { throw new Error('gone'); }).then(() => (settled = true));
    await turns();
    expect([settled, acks.size]).toEqual([true, 0]);
  });
});
