import { SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import { fileName } from './record-file';
import type { RecordFile } from './record-merges';

/**
 * Record files a merge took whose removal failed (an EIO, Windows' EBUSY).
 * Each still holds the states its ids had, out of the store's list, so a
 * purge's scrub, which rewrites the listed files, passed it by and left the
 * purged data on disk. They are removed again at the next merge, and a
 * scrub of an id one holds removes it first or fails, so the purge's batches
 * stay unsealed and the scrub is tried again (storage/commit.ts). An open
 * lists such a file again as any record file: its states are older join
 * terms of its ids.
 */
export class RecordLeftovers {
  /** Per file name, the ids it holds (its sealed elements not opened here included). */
  private readonly held = new Map<string, readonly string[]>();

  constructor(
    private readonly backend: Backend,
    private readonly recycle: boolean,
    private readonly onError: (e: Error) => void,
  ) {}

  /** Files a merge took, to remove (`retry`): noted before the merge lets go of their ids. */
  take(files: readonly RecordFile[]): void {
    for (const f of files) this.held.set(fileName(f.n), f.unopened ? [...f.ids, ...f.unopened.map((u) => u.id)] : f.ids);
  }

  /** Remove every file taken; what fails is kept, for the next merge, and reported once (the first failure named). */
  async retry(): Promise<void> {
    let failed: { file: string; e: Error } | undefined;
    let count = 0;
    for (const file of [...this.held.keys()]) {
      const e = await this.remove(file);
      if (e && count++ === 0) failed = { file, e };
    }
    if (!failed) return;
    const { file, e } = failed;
    const more = count > 1 ? ` and ${count - 1} more` : '';
    this.onError(new SyncomError('IO_ERROR', `record file ${file}${more}, merged into a newer one, not removed (${e.message}); tried again at the next merge`, { file, count, cause: e }));
  }

  /**
   * Remove every kept file holding one of `ids` (a purge's scrub).
   * @throws the first removal's error: the purged data is still in that file.
   */
  async scrub(ids: ReadonlySet<string>): Promise<void> {
    for (const [file, held] of [...this.held]) {
      if (!held.some((id) => ids.has(id))) continue;
      const e = await this.remove(file);
      if (e) throw e;
    }
  }

  private async remove(file: string): Promise<Error | undefined> {
    try {
      await this.backend.remove(file, { recycle: this.recycle });
      this.held.delete(file);
      return undefined;
    } catch (e) {
      return e as Error;
    }
  }
}
