import { IoAdapter } from '@nestjs/platform-socket.io';
import type { MessageMappingProperties } from '@nestjs/websockets';
import { isObservable, type Observable } from 'rxjs';

type Ack = (response: unknown) => void;
/** The socket as Nest's adapter types it (its own socket.io copy's). */
type Socket = Parameters<IoAdapter['bindMessageHandlers']>[0];

/**
 * Nest's socket.io adapter, with each message handler bound to a socket as a
 * plain listener. Nest's own binds every handler of every socket as an RxJS
 * pipeline (fromEvent, mergeMap, filter, map, takeUntil) that lives as long as
 * the socket: with the gateway's 8 handlers about 15 KB of heap a connection
 * and a run of allocations on each message, which at thousands of peers is
 * heap the garbage collector marks again and again (docs/benchmarks.md,
 * "Where the hub's CPU and heap go"). What a handler answers is delivered as
 * Nest's adapter delivers it: nothing for null or undefined, `{ event, data }`
 * emitted as that event, anything else to the message's ack (unless the
 * handler acks by itself), nothing once the socket has disconnected. Guards,
 * pipes, interceptors and exception filters run inside the handler callback
 * Nest hands the adapter, so they apply unchanged.
 * @example app.useWebSocketAdapter(new SyncomIoAdapter(app));
 */
export class SyncomIoAdapter extends IoAdapter {
  override bindMessageHandlers(socket: Socket, handlers: MessageMappingProperties[], _transform?: (data: unknown) => Observable<unknown>): void {
    let gone = false;
    socket.once('disconnect', () => (gone = true));
    for (const { message, callback, isAckHandledManually } of handlers) {
      const deliver = (response: unknown, ack: Ack | undefined): void => {
        if (gone || response === null || response === undefined) return;
        const r = response as { event?: string; data?: unknown };
        if (r.event) {
          socket.emit(r.event, r.data);
          return;
        }
        if (!isAckHandledManually && typeof ack === 'function') ack(response);
      };
      socket.on(message as string, (...args: unknown[]) => {
        // One argument alone, several as an array: what Nest's adapter hands mapPayload (rxjs fromEvent's shape).
        const { data, ack } = this.mapPayload(args.length === 1 ? args[0] : args) as { data: unknown; ack?: Ack };
        // Nest's callback answers a promise (guards may be async) of the handler's answer, which may itself be a
        // promise or a stream: each value of a stream goes out as Nest's adapter sends it.
        const settle = (answer: unknown): void => {
          if (answer instanceof Promise) {
            // Nest's exception filters run inside the callback: a rejection left here has no one to answer.
            answer.then(settle, () => undefined);
          } else if (isObservable(answer)) {
            const sub = answer.subscribe({ next: (v) => deliver(v, ack), error: () => undefined });
            // Its disconnect listener goes when the stream ends: one left per answered call made a socket's
            // disconnect cost the square of its calls (40,000 calls, 13.5 s of a blocked hub).
            if (!sub.closed) {
              const off = () => sub.unsubscribe();
              socket.once('disconnect', off);
              sub.add(() => socket.off('disconnect', off));
            }
          } else {
            deliver(answer, ack);
          }
        };
        try {
          settle(callback(data, ack));
        } catch {
          // As with a rejection: Nest's filters answered inside the callback, and a throw here must not take the process down.
        }
      });
    }
  }
}
