import type { Backend } from '../backend/types';
import { batchFile } from './files';

/** An open file grows to this many bytes at most before the next batch starts another (a batch may pass it). */
export const OPEN_FILE_MAX_BYTES = 4 * 1024 * 1024;

/** The newest open file, while appends go to it. */
interface Current {
  /** The position in its name: its first batch's. */
  name: number;
  lines: number;
  bytes: number;
}

/**
 * Where the log's appended batches go. By default each batch is a file of its
 * own, the spec's layout (The log: open/<seq>.json, never rewritten). With
 * `lines` (open({ sync: { log: { lines: true } } })) and a backend that can
 * append, each batch is one line added to the newest open file,
 * log/open/<from of its first batch>.json, kept open by the backend: no file
 * is created per batch, which is what an awaited write otherwise waits on.
 * A new file starts at the first append after open(), after a failed append,
 * once the file holds OPEN_FILE_MAX_BYTES, after a scrub rewrote it, and
 * where a seal will cut (see write): a seal then removes whole files, never
 * part of one. Without append, each batch is a file of its own, written in
 * place (no temp file and rename): torn, it can only be the newest, never
 * announced, and the load drops it.
 */
export class OpenFiles {
  private current?: Current;
  /** Writes, restarts and the close run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Whether open files hold one batch a line (asked for, and the backend appends), else one batch each. */
  readonly lined: boolean;

  /**
   * Whether the files the storage lets go of (a seal's batch files, the
   * record files a merge took) are handed back to the backend to write the
   * next ones into (Backend.remove's `recycle`). Not when lined: a new open
   * file is the appender's spare, and a record file filled on the main thread
   * takes it from the appends (docs/benchmarks.md).
   */
  readonly recycles: boolean;

  constructor(private readonly backend: Backend, private readonly durable: boolean, private readonly rollAfter: number, lines = false) {
    this.lined = lines && backend.append !== undefined;
    this.recycles = !this.lined;
  }

  private run<T>(step: () => Promise<T>): Promise<T> {
    const p = this.queue.then(step);
    this.queue = p.catch(() => undefined);
    return p;
  }

  /**
   * Write the batch at `from` (its JSON, no newline); `index` is its place
   * among the open batches. Seals take rollAfter batches from the front, so a
   * file started whenever that place is a multiple of rollAfter never holds
   * batches of two seals. `landed` runs as soon as the batch is written, with
   * the position in its file's name, before any later step of this queue.
   */
  write(from: number, data: string, index: number, landed: (file: number) => void): Promise<void> {
    return this.run(async () => {
      const { backend } = this;
      if (!this.lined || !backend.append) {
        await backend.write(batchFile(from), `${data}\n`, { durable: this.durable, inPlace: true });
        return landed(from);
      }
      const c = this.current;
      const file = !c || index % this.rollAfter === 0 || c.bytes >= OPEN_FILE_MAX_BYTES ? { name: from, lines: 0, bytes: 0 } : c;
      this.current = file;
      const line = `${data}\n`;
      try {
        // fresh: a leftover at this name (a failed append's file the discard could not remove) is cut, not appended to.
        await backend.append(batchFile(file.name), line, { durable: this.durable, fresh: file.lines === 0 });
      } catch (e) {
        if (this.current === file) this.current = undefined;
        throw e;
      }
      file.lines++;
      file.bytes += line.length;
      landed(file.name);
    });
  }

  /**
   * Before the purge scrub rewrites open files in place: once the write in
   * flight has landed, start the next file (empty, at position `next()`), so
   * no append goes to a file being rewritten, and the newest file is never
   * one the scrub rewrote: a crash that tears a rewritten file leaves a torn
   * line the load reports (GUAR-21), never one it takes for a cut append.
   */
  restart(next: () => number): Promise<void> {
    return this.run(async () => {
      this.current = undefined;
      if (!this.lined) return;
      const name = next();
      await this.backend.write(batchFile(name), '', { durable: this.durable, inPlace: true });
      this.current = { name, lines: 0, bytes: 0 };
    });
  }

  /** At close: a file started and never written to is removed; the backend lets go of what it keeps open. */
  close(): Promise<void> {
    return this.run(async () => {
      const c = this.current;
      this.current = undefined;
      if (c?.lines === 0) await this.backend.remove(batchFile(c.name));
      await this.backend.close?.();
    });
  }

  /** The files named are gone (sealed): never append to one of them again. */
  removed(names: Iterable<number>): void {
    for (const n of names) if (this.current?.name === n) this.current = undefined;
  }
}
