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
  return notes.sort((a, b) => b.ts - a.ts || (a.id < b.id ? -1 : 1));
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
