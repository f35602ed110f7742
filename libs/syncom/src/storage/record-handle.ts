import { SyncomError } from '../errors';
import { asInvalid } from './local-ops';
import type { RecordMeta, WriteOptions } from './options';

/** What a record handle needs of its storage. */
interface Writes {
  update(id: string, fields: Record<string, unknown>, options?: WriteOptions): Promise<void>;
  inc(id: string, field: string, by?: number, options?: WriteOptions): Promise<void>;
  add(id: string, field: string, elements: unknown[], options?: WriteOptions): Promise<void>;
  remove(id: string, field: string, elements: unknown[], options?: WriteOptions): Promise<void>;
  delete(id: string, options?: WriteOptions): Promise<void>;
}

/**
 * A handle on one record (storage.record(id)): `data` is a copy to edit;
 * save() writes the register fields that changed since the handle was taken
 * as one `set` op (OPS-4); counters and sets move with inc/add/remove.
 */
export class RecordHandle {
  private readonly original: Record<string, string>;

  constructor(
    private readonly storage: Writes,
    readonly id: string,
    public data: Record<string, unknown>,
    readonly meta: RecordMeta,
  ) {
    this.original = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, JSON.stringify(v)]));
  }

  /** Write the fields of `data` that changed; nothing when none did. */
  async save(options?: WriteOptions): Promise<void> {
    const changed: Record<string, unknown> = {};
    // `data` replaced by something that is no plain object (a Date, a Map) had no fields to compare: save() wrote nothing and resolved.
    // Told by its tag, not its prototype: structuredClone's copies (and another realm's objects) have another Object.prototype.
    if (Object.prototype.toString.call(this.data) !== '[object Object]') throw new SyncomError('INVALID_ARGUMENT', 'a record handle\'s data must be a plain object of fields');
    // What the caller put in `data` is read as update() reads it: a BigInt or a getter that throws is INVALID_ARGUMENT.
    asInvalid('a record handle\'s data must be JSON', () => {
      for (const [k, v] of Object.entries(this.data)) if (JSON.stringify(v) !== this.original[k]) changed[k] = v;
    });
    if (Object.keys(changed).length === 0) return;
    await this.storage.update(this.id, changed, options);
    for (const [k, v] of Object.entries(changed)) this.original[k] = JSON.stringify(v);
  }

  inc(field: string, by = 1, options?: WriteOptions): Promise<void> {
    return this.storage.inc(this.id, field, by, options);
  }

  add(field: string, elements: unknown[], options?: WriteOptions): Promise<void> {
    return this.storage.add(this.id, field, elements, options);
  }

  remove(field: string, elements: unknown[], options?: WriteOptions): Promise<void> {
    return this.storage.remove(this.id, field, elements, options);
  }

  delete(options?: WriteOptions): Promise<void> {
    return this.storage.delete(this.id, options);
  }
}
