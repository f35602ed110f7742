/** A position in one node's log: `<epoch>.<seq>` (LOG-6). */
export interface EventId {
  epoch: string;
  seq: number;
}

/** The event id of position `seq` in the log of `epoch`. */
export function formatEventId(epoch: string, seq: number): string {
  return `${epoch}.${seq}`;
}

/** Parse an event id; undefined for anything that is not one. Never throws. */
export function parseEventId(value: unknown): EventId | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const epoch = value.slice(0, dot);
  const digits = value.slice(dot + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(epoch) || !/^(0|[1-9]\d{0,15})$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? { epoch, seq } : undefined;
}
