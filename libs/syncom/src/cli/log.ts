import { formatEventId } from '../log/event-id';
import type { Replica } from '../storage/replica';
import { CliError, type CliIo, EXIT_FAULTS, EXIT_OK, textLines, writeOut } from './io';
import { opJson, opLine } from './op-line';
import { openReadOnly } from './open-read-only';
import { findStorage } from './storage-dir';

/** What `syncom log` shows. */
export interface LogOptions {
  /** The first event id shown (inclusive), or a bare position in this log; default the oldest retained. */
  from?: string;
  limit?: number;
  json: boolean;
}

/**
 * The first position to show for `--from`: an event id of this log's epoch
 * (LOG-6) or a bare position; within floor..head.
 *
 * @throws CliError exit 2 naming why the id does not fit this log.
 */
export function startOf(log: Replica, from: string | undefined): number {
  if (from === undefined) return log.floor + 1;
  const value = /^\d+$/.test(from) ? formatEventId(log.epoch, Number(from)) : from;
  const c = log.cursor(value);
  if (c.ok) return Math.max(c.pos, log.floor + 1);
  const oldest = formatEventId(log.epoch, log.floor + 1);
  const why = {
    invalid: 'is no event id (<epoch>.<position>, as info prints them)',
    foreign: `is from another log epoch; this log's epoch is ${log.epoch}`,
    floor: `is below the floor: retention dropped it; the oldest retained is ${oldest}`,
    ahead: `is beyond the head, ${log.eventId()}`,
  }[c.reason];
  throw new CliError(`--from ${from} ${why}`);
}

/**
 * `syncom log <path> [--from <eventId>] [--limit n] [--json]`: the ops of the
 * log in log order, one per line, from an event id on (inclusive: the line of
 * `--from` comes first). Exit 1 when part of the log could not be read.
 */
export async function logCommand(path: string, o: LogOptions, io: CliIo): Promise<number> {
  const { storage, problems, close } = await openReadOnly(await findStorage(path));
  try {
    const log = storage.replica;
    const start = startOf(log, o.from);
    const entries = log.read(start - 1, o.limit);
    const lines = entries.map((e) => (o.json ? JSON.stringify(opJson(log.eventId(e.pos), e)) : opLine(log.eventId(e.pos), e)));
    if (lines.length) await writeOut(io.stdout, textLines(lines));
    for (const p of problems) await writeOut(io.stderr, textLines([`syncom log: ${p}`]));
    return problems.length ? EXIT_FAULTS : EXIT_OK;
  } finally {
    await close();
  }
}
