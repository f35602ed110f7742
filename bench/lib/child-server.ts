/** A child's command handlers, by name: each takes the request's args and returns the answer. */
export type Handlers = Record<string, (args: Record<string, unknown>) => unknown>;

type Request = { id: number; cmd: string; args: Record<string, unknown> };

/**
 * The child's side of BenchChild (lib/processes.ts): answer each request
 * over the IPC channel with its handler's result or error, then say ready.
 * Requests run concurrently (a watch waits while an insert runs). When the
 * channel closes — the bench stopped this child, or itself died — `close`
 * runs and the process exits, so no child outlives its bench.
 *
 * @throws Error when the process was not started with an IPC channel.
 */
export function serve(handlers: Handlers, close: () => Promise<void>): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('a bench child needs an IPC channel: start it with BenchChild.spawn');
  process.on('message', (m: Request) => {
    void (async () => {
      try {
        const handler = handlers[m.cmd];
        if (!handler) throw new Error(`unknown command ${m.cmd}`);
        const value = await handler(m.args);
        if (process.connected) send({ id: m.id, ok: true, value: value ?? null });
      } catch (e) {
        if (process.connected) send({ id: m.id, ok: false, error: e instanceof Error ? e.stack ?? e.message : String(e) });
      }
    })();
  });
  process.once('disconnect', () => {
    // Whatever close() does, the process goes: a stuck close must not leave an orphan.
    const timer = setTimeout(() => process.exit(1), 5_000);
    close().catch(() => undefined).finally(() => {
      clearTimeout(timer);
      process.exit(0);
    });
  });
  send({ ready: true });
}

/** Now on the monotonic clock shared by every process of the machine (CLOCK_MONOTONIC), in ms. */
export function clockMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
