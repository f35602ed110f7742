import type { Storage } from 'syncom/browser';

/** The record type of a note: the same shape as apps/example-api's notes, so both apps edit the same records. */
export const NOTE = 'Note';

/** A note as the app shows it: title and body registers, tags a set, views a counter. */
export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  views: number;
  /** When it was last written, ms (its stamp's wall time): the list shows the newest first. */
  ts: number;
}

/** A peer may write anything: fields of the wrong kind read as empty rather than break the page. */
function toNote(id: string, data: Record<string, unknown>, ts: number): Note {
  return {
    id,
    title: typeof data.title === 'string' ? data.title : '',
    body: typeof data.body === 'string' ? data.body : '',
    tags: Array.isArray(data.tags) ? data.tags.filter((t): t is string => typeof t === 'string') : [],
    views: typeof data.views === 'number' ? data.views : 0,
    ts,
  };
}

/** Every live note, the newest first (list() pages in id order; 1000 a page). */
export async function listNotes(storage: Storage): Promise<Note[]> {
  const notes: Note[] = [];
  for (let after: string | undefined; ;) {
    const page = await storage.list({ limit: 1000, after });
    for (const r of page) if (r.data.$type === NOTE) notes.push(toNote(r.id, r.data, r.meta.ts));
    if (page.length < 1000) break;
    after = page[page.length - 1].id;
  }
  return newestFirst(notes);
}

function newestFirst(notes: Note[]): Note[] {
  return notes.sort((a, b) => b.ts - a.ts || (a.id < b.id ? -1 : 1));
}

/**
 * The notes as the page last read them, kept up to date by the ids that
 * changed since: the first read lists the store, each later one reads only
 * the records a change named (a note edited, removed, or a record of
 * another type that became one), so a store of many records is not listed
 * again at every change a sync brings.
 */
export class NoteIndex {
  private readonly notes = new Map<string, Note>();
  private changed: Set<string> | 'all' = 'all';

  constructor(private readonly storage: Storage) {}

  /** A change to record `id` (none named: to any): read it again at the next read(). */
  touch(id: string | undefined): void {
    if (typeof id !== 'string') this.changed = 'all';
    else if (this.changed !== 'all') this.changed.add(id);
  }

  /** Every live note, the newest first. */
  async read(): Promise<Note[]> {
    const changed = this.changed;
    this.changed = new Set();
    try {
      if (changed === 'all') {
        this.notes.clear();
        for (const n of await listNotes(this.storage)) this.notes.set(n.id, n);
      } else {
        for (const id of changed) {
          const r = await this.storage.record(id);
          if (r && r.data.$type === NOTE) this.notes.set(id, toNote(id, r.data, r.meta.ts));
          else this.notes.delete(id);
        }
      }
    } catch (e) {
      // A read that failed part way leaves the index unsure of what it holds: the next one lists the store.
      this.changed = 'all';
      throw e;
    }
    return newestFirst([...this.notes.values()]);
  }
}

/** The note writes: each one storage call, local first; sync carries it to the hub. */
export function noteWrites(storage: Storage) {
  return {
    create: (title: string, body: string) => storage.insert({ $type: NOTE, title, body }),
    edit: (id: string, fields: { title: string; body: string }) => storage.update(id, fields),
    tag: (id: string, tag: string) => storage.add(id, 'tags', [tag]),
    untag: (id: string, tag: string) => storage.remove(id, 'tags', [tag]),
    view: (id: string) => storage.inc(id, 'views', 1),
    remove: (id: string) => storage.delete(id),
  };
}

export type NoteWrites = ReturnType<typeof noteWrites>;
