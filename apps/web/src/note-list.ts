import { h } from './dom';
import { BODY_CHARS, BRIEF_CHARS, LIST_CHARS, SHOWN, SHOWN_TAGS, TAG_CHARS, TITLE_CHARS } from './list-bounds';
import type { Note } from './notes';

/** What the list's controls do; each resolves once its write is in the local store (true) or failed (false, shown on the page). */
export interface NoteActions {
  edit(note: Note): void;
  tag(id: string, tag: string): Promise<boolean>;
  untag(id: string, tag: string): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}

/** How much of a note its item shows. */
interface Bounds {
  title: number;
  body: number;
  tags: number;
}

const FULL: Bounds = { title: TITLE_CHARS, body: BODY_CHARS, tags: SHOWN_TAGS };
/** A note past LIST_CHARS: the start of its title and body, its tags counted. */
const BRIEF: Bounds = { title: BRIEF_CHARS, body: BRIEF_CHARS, tags: 0 };

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

  /** Shows `note` within `bounds`; answers what it spent of LIST_CHARS. */
  update(note: Note, bounds: Bounds): number {
    this.note = note;
    // Tags cut as they are shown. The key holds the note's own strings, compared by ===: a JSON text of it
    // copied every shown title and body at every refresh, megabytes a time when a peer wrote large notes.
    const tags = note.tags.slice(0, bounds.tags).map((tag) => tag.slice(0, TAG_CHARS));
    const key = [bounds, note.title, note.body, note.tags.length, ...tags];
    if (!same(key, this.shown)) {
      this.shown = key;
      const more = note.tags.length - tags.length;
      this.view.replaceChildren(
        h('h3', { 'data-testid': 'note-title-text' }, cut(note.title, bounds.title) || '(untitled)'),
        h('p', { 'data-testid': 'note-body-text' }, cut(note.body, bounds.body)),
        h('ul', { class: 'tags' }, ...tags.map((tag, i) => this.tag(i, tag))),
        h('span', { 'data-testid': 'tags-more', class: 'views', hidden: more === 0 }, `${tags.length > 0 ? 'and ' : ''}${more} ${tags.length > 0 ? 'more ' : ''}tag${more === 1 ? '' : 's'}`),
        this.views,
      );
    }
    // A view counted by any peer changes this line alone, not the tags.
    this.views.textContent = `${note.views} view${note.views === 1 ? '' : 's'}`;
    return Math.min(note.title.length, bounds.title) + Math.min(note.body.length, bounds.body) + tags.length * TAG_CHARS;
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
    let left = LIST_CHARS;
    for (const note of notes) {
      const item = this.items.get(note.id) ?? this.add(note.id);
      left -= item.update(note, left > 0 ? FULL : BRIEF);
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
