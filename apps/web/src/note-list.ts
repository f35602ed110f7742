import { h } from './dom';
import type { Note } from './notes';

/** What the list's controls do; each resolves once its write is in the local store (true) or failed (false, shown on the page). */
export interface NoteActions {
  edit(note: Note): void;
  tag(id: string, tag: string): Promise<boolean>;
  untag(id: string, tag: string): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}

/** The most notes the list shows; a store bootstrapped from a busy hub may hold many more. */
export const SHOWN = 500;

/**
 * The most tags a note shows, and the characters of each: a peer may put
 * thousands in one note, or a tag of megabytes, and every one shown is
 * elements, a listener and attributes (the rest are counted in a line).
 */
export const SHOWN_TAGS = 50;
export const TAG_CHARS = 100;

/**
 * The most characters of a title and of a body the list shows: what the
 * form lets a user type (maxlength). A peer may write a title of megabytes,
 * which was laid out whole; the rest is counted in a line.
 */
export const TITLE_CHARS = 500;
export const BODY_CHARS = 100_000;

/** `text` cut to `max` characters, with how many were left out. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Whether two lists hold the same values (===: a note the index did not read again keeps its very strings, compared at once). */
function same(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** One note's list item. The tag input is made once, so a peer's write never wipes what is being typed in it. */
class NoteItem {
  readonly el: HTMLLIElement;
  private readonly view = h('div', { class: 'note-view' });
  private readonly views = h('span', { 'data-testid': 'note-views', class: 'views' });
  private shown: readonly unknown[] = [];
  private note!: Note;

  constructor(id: string, private readonly actions: NoteActions) {
    const input = h('input', { 'data-testid': 'tag-input', placeholder: 'tag', maxlength: 100, required: true });
    const tagForm = h('form', {
      'data-testid': 'tag-form',
      class: 'tag-form',
      onsubmit: (e) => {
        e.preventDefault();
        const tag = input.value.trim();
        if (tag) void actions.tag(id, tag).then((ok) => { if (ok) input.value = ''; });
      },
    }, input, h('button', { 'data-testid': 'tag-add' }, 'Tag'));
    const buttons = h('div', { class: 'note-buttons' },
      h('button', { type: 'button', 'data-testid': 'edit-button', onclick: () => actions.edit(this.note) }, 'Edit'),
      h('button', { type: 'button', 'data-testid': 'delete-button', class: 'danger', onclick: () => void actions.remove(id) }, 'Delete'));
    this.el = h('li', { 'data-testid': 'note-item', 'data-id': id, class: 'note' }, this.view, tagForm, buttons);
  }

  update(note: Note): void {
    this.note = note;
    // Tags cut as they are shown. The key holds the note's own strings, compared by ===: a JSON text of it
    // copied every shown title and body at every refresh, megabytes a time when a peer wrote large notes.
    const tags = note.tags.slice(0, SHOWN_TAGS).map((tag) => tag.slice(0, TAG_CHARS));
    const key = [note.title, note.body, note.tags.length, ...tags];
    if (!same(key, this.shown)) {
      this.shown = key;
      this.view.replaceChildren(
        h('h3', { 'data-testid': 'note-title-text' }, cut(note.title, TITLE_CHARS) || '(untitled)'),
        h('p', { 'data-testid': 'note-body-text' }, cut(note.body, BODY_CHARS)),
        h('ul', { class: 'tags' }, ...tags.map((tag, i) => this.tag(i, tag))),
        h('span', { 'data-testid': 'tags-more', class: 'views', hidden: note.tags.length <= SHOWN_TAGS }, `and ${note.tags.length - SHOWN_TAGS} more tags`),
        this.views,
      );
    }
    // A view counted by any peer changes this line alone, not the tags.
    this.views.textContent = `${note.views} view${note.views === 1 ? '' : 's'}`;
  }

  /**
   * The item of the tag shown `i`-th, cut to TAG_CHARS (`shown`). Removing it
   * removes the whole tag the note holds now: a peer may have replaced it
   * with another of the same first characters since the item was made.
   */
  private tag(i: number, shown: string): HTMLLIElement {
    const full = () => {
      const at = this.note.tags[i];
      return at !== undefined && at.slice(0, TAG_CHARS) === shown ? at : this.note.tags.find((t) => t.slice(0, TAG_CHARS) === shown);
    };
    return h('li', { 'data-testid': 'note-tag', 'data-tag': shown, class: 'tag' }, shown,
      h('button', { type: 'button', 'data-testid': 'untag-button', title: `remove ${shown}`, onclick: () => { const tag = full(); if (tag !== undefined) void this.actions.untag(this.note.id, tag); } }, '×'));
  }
}

/** The note list, keyed by id: items are kept, updated in place and moved only when the order changes. */
export class NoteList {
  private readonly items = new Map<string, NoteItem>();

  constructor(private readonly root: HTMLElement, private readonly more: HTMLElement, private readonly actions: NoteActions) {}

  show(all: Note[]): void {
    const notes = all.slice(0, SHOWN);
    const keep = new Set(notes.map((n) => n.id));
    for (const [id, item] of this.items) {
      if (keep.has(id)) continue;
      item.el.remove();
      this.items.delete(id);
    }
    let prev: Element | null = null;
    for (const note of notes) {
      const item = this.items.get(note.id) ?? this.add(note.id);
      item.update(note);
      const here: Element | null = prev ? prev.nextElementSibling : this.root.firstElementChild;
      if (here !== item.el) (prev ? prev.after(item.el) : this.root.prepend(item.el));
      prev = item.el;
    }
    this.more.hidden = all.length <= SHOWN;
    this.more.textContent = `and ${all.length - SHOWN} more notes, not shown`;
  }

  private add(id: string): NoteItem {
    const item = new NoteItem(id, this.actions);
    this.items.set(id, item);
    return item;
  }
}
