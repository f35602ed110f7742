import type { Socket as ClientSocket } from 'socket.io-client';
import { rawSocket } from './dialer';
import { type HubSetup, startHub, type TestHub } from './hub';

/** A changes page as a raw socket receives it. */
export type RawPage = { sub: string; eventId?: string; value: { ops: unknown[]; prev: string } };

/** A raw socket that greeted and subscribed: its pages in order, each acked at once. */
export interface RawSubscriber {
  socket: ClientSocket;
  pages: RawPage[];
  /** Resolves once `done(pages)` holds (checked now and at every page). */
  until(done: (pages: RawPage[]) => boolean): Promise<void>;
}

/** Greets as `node` (every scope) and subscribes as `sub` from the event id `from`. */
export async function rawSubscriber(
  hub: TestHub,
  o: { node: string; sub: string; from: string; transports?: ('websocket' | 'polling')[] },
): Promise<RawSubscriber> {
  const socket = await rawSocket(hub.url, { transports: o.transports ?? ['websocket'] });
  const pages: RawPage[] = [];
  const waiters = new Set<() => void>();
  socket.on('changes:data', (m: RawPage, ack: (a: unknown) => void) => {
    pages.push(m);
    ack({ ok: true, value: null });
    for (const w of [...waiters]) w();
  });
  await socket.timeout(5000).emitWithAck('hello', { node: o.node, vector: {}, epoch: o.node, schema: null, scopes: ['*'] });
  await socket.timeout(5000).emitWithAck('changes', { sub: o.sub, lastEventId: o.from });
  const until = (done: (pages: RawPage[]) => boolean) => new Promise<void>((resolve) => {
    const check = () => {
      if (!done(pages)) return;
      waiters.delete(check);
      resolve();
    };
    waiters.add(check);
    check();
  });
  return { socket, pages, until };
}

/**
 * A hub per test (beforeEach/afterEach registered here) and its raw
 * subscribers, disconnected after each test; head() is the hub's newest event id.
 */
export function rawSubscriberFixture(setup?: HubSetup) {
  const state: { hub?: TestHub; sockets: ClientSocket[] } = { sockets: [] };
  beforeEach(async () => {
    state.hub = await startHub(setup);
  });
  afterEach(async () => {
    for (const s of state.sockets.splice(0)) s.disconnect();
    await state.hub?.close();
  });
  const hub = () => state.hub as TestHub;
  return {
    hub,
    head: () => hub().storage.replica.eventId(hub().storage.replica.head),
    subscribe: async (o: { node: string; sub: string; from: string; transports?: ('websocket' | 'polling')[] }) => {
      const s = await rawSubscriber(hub(), o);
      state.sockets.push(s.socket);
      return s;
    },
  };
}
