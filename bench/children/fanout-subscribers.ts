import { io, type Socket } from 'socket.io-client';
import { formatEventId } from '../../libs/syncom/src';
import { newSigningKey } from '../../libs/syncom/src/testing/signing-key';
import { HeldAcks, pageAcksOf } from '../../libs/syncom/src/socket.io/held-acks';
import type { PageAcksOffer } from '../../libs/syncom/src/socket.io/socket-io-protocol';
import { serve } from '../lib/child-server';

type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string } };
type Frame = { sub: string; value?: { ops?: unknown[] }; eventId?: string; more?: boolean };

/**
 * The subscribers of the fan-out bench: raw socket.io-client sockets that
 * greet, open a changes feed from the start of the hub's log and ack its
 * pages as the shipped link does (they count ops and keep nothing), so a
 * thousand fit in one process.
 * Frames of sub 'bare' (the bare broadcast) are counted apart, unacked;
 * those of sub 'h' (feeds opened at the head, to count their opening) too.
 */
interface Sub {
  socket: Socket;
  epoch: string;
  got: number;
  bare: number;
  /** The hub's offer of cumulative acks (its hello answer), and the acks held on it, as the shipped link holds them. */
  offer?: PageAcksOffer;
  acks: HeldAcks;
}

/**
 * Acks as the shipped socket.io link does (its HeldAcks): a page comes, and
 * is taken after the turn it came in (the link hands pages over in order, in
 * later microtasks), so pages that came together are answered by one ack;
 * with the hub's offer, the ack of a page the hub marked `more` waits for
 * the next page, half the window or a timer.
 */
function taken(sub: Sub, ack: ((a: Answer) => void) | undefined, more: boolean): void {
  if (!ack) return;
  sub.acks.arrived();
  queueMicrotask(() => sub.acks.taken(ack as (a: unknown) => void, sub.offer, more));
}

let subs: Sub[] = [];
/** Ops the feeds opened at the head took: none, if they opened where the log ends. */
let atHead = 0;
let frames: { value: unknown; eventId?: string }[] = [];
let check: () => void = () => undefined;
let bareDone: Promise<void> = Promise.resolve();

async function call(socket: Socket, event: string, payload: unknown): Promise<unknown> {
  const answer = (await socket.timeout(120_000).emitWithAck(event, payload)) as Answer;
  if (!answer.ok) throw new Error(`${event}: ${answer.error.code}`);
  return answer.value;
}

async function connect(url: string, token: string, i: number): Promise<Sub> {
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, auth: { token } });
  const sub: Sub = { socket, epoch: '', got: 0, bare: 0, acks: new HeldAcks() };
  socket.on('changes:data', (m: Frame, ack?: (a: Answer) => void) => {
    const n = m?.value?.ops?.length ?? 0;
    if (m.sub === 'bare') sub.bare += n;
    else if (m.sub === 'h') {
      atHead += n;
      ack?.({ ok: true, value: null });
    } else {
      sub.got += n;
      if (i === 0 && m.value?.ops) frames.push({ value: m.value, eventId: m.eventId });
      taken(sub, ack, m.more === true);
    }
    check();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const x = newSigningKey().node;
  const answer = (await socket.timeout(120_000).emitWithAck('hello', { node: x, vector: {}, epoch: `fan${i}`, schema: null, scopes: ['*'], token })) as Answer;
  if (!answer.ok) throw new Error(`hello: ${answer.error.code}`);
  sub.epoch = (answer.value as { epoch: string }).epoch;
  sub.offer = pageAcksOf(answer);
  return sub;
}

/** Resolves once `done()` holds, checked after every frame. */
const until = (done: () => boolean) => new Promise<void>((resolve) => {
  check = () => { if (done()) { check = () => undefined; resolve(); } };
  check();
});

async function close(): Promise<void> {
  for (const s of subs) s.socket.disconnect();
  subs = [];
}

serve({
  /** `n` sockets connected and greeted, 25 at a time. */
  async connect(args) {
    await close();
    const { url, token, n } = args as { url: string; token: string; n: number };
    for (let i = 0; i < n; i += 25) subs.push(...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, k) => connect(url, token, i + k)))));
  },
  /** Every socket opens a feed from the log's start; resolves once each took `ops` ops. */
  async feed(args) {
    const { ops } = args as { ops: number };
    frames = [];
    for (const s of subs) s.got = 0;
    const done = until(() => subs.every((s) => s.got >= ops));
    await Promise.all(subs.map((s) => call(s.socket, 'changes', { sub: 'f', lastEventId: formatEventId(s.epoch, 0) })));
    await done;
    // The feeds stay open, idle at the head, until the sockets close: the hub's CPU is read now.
    return { over: subs.reduce((n, s) => n + s.got, 0) - ops * subs.length };
  },
  /**
   * Every socket opens a feed at the head of the log (`head` ops in it):
   * it has nothing to send, so the hub's CPU for it is the opening alone.
   */
  async openAtHead(args) {
    const { head } = args as { head: number };
    atHead = 0;
    await Promise.all(subs.map((s) => call(s.socket, 'changes', { sub: 'h', lastEventId: formatEventId(s.epoch, head) })));
  },
  /** The feeds openAtHead opened end, so the next feed opens as the first one of its socket again (its rooms joined anew). */
  async closeAtHead() {
    await Promise.all(subs.map((s) => call(s.socket, 'unsubscribe', { sub: 'h' })));
    return { ops: atHead };
  },
  /** The pages socket 0 took in the last feed: what the bare broadcast sends. */
  frames() {
    return { frames };
  },
  /** Arms the wait for `ops` ops of the bare broadcast on every socket (before it starts). */
  armBare(args) {
    const { ops } = args as { ops: number };
    for (const s of subs) s.bare = 0;
    bareDone = until(() => subs.every((s) => s.bare >= ops));
  },
  /** Resolves once every socket took the armed ops of the bare broadcast. */
  bare() {
    return bareDone;
  },
  close,
}, close);
