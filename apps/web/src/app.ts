import type { Storage } from 'syncom/browser';
import { byTestId } from './dom';
import { NoteList } from './note-list';
import { type Note, NoteIndex, noteWrites, type NoteWrites } from './notes';
import { Refresher } from './refresh';
import { dialHub, knownToken, type Opened, openStore, takeUrlToken } from './store';
import { hubUrl, type SyncView, watchSync } from './sync-state';
import { showPhase, showSync } from './sync-view';

/** Where the app is: opening the store, locked by another tab (waiting for it), open, or failed. */
export type Phase = 'opening' | 'locked' | 'waiting' | 'ready' | 'failed';

/** What window.syncomApp.state() answers. */
export interface AppState {
  phase: Phase;
  /** This node's id (stable across reloads on OPFS). */
  id: string | null;
  /** false: the browser has no OPFS, the notes live in memory until the tab closes. */
  persistent: boolean | null;
  sync: SyncView | null;
  /** Live notes in the store. */
  notes: number;
  /** The note the form edits, or null when it makes a new one. */
  editing: string | null;
  /** The last failed action or open, one line. */
  error: string | null;
}

const $ = byTestId;

/** The notes app on one page: the store, the form, the list and the sync line. */
export class NotesApp {
  storage: Storage | undefined;
  private phase: Phase = 'opening';
  private sync: SyncView | null = null;
  private notes = 0;
  private editing: string | null = null;
  private error: string | null = null;
  private persistent: boolean | null = null;
  private writes!: NoteWrites;
  private waiter?: AbortController;
  private index?: NoteIndex;
  /** The error line a failed read of the notes put up, cleared once a read works again (unless another replaced it). */
  private readError: string | null = null;
  private readonly refresher = new Refresher<Note[]>({
    read: () => this.index!.read(),
    show: (notes) => {
      this.notes = notes.length;
      this.list.show(notes);
    },
    failed: (e) => this.showError((this.readError = `could not read the notes (retrying): ${message(e)}`)),
    recovered: () => {
      if (this.error === this.readError) this.showError(null);
      this.readError = null;
    },
  });
  private readonly url = hubUrl(location.origin);
  private urlToken = takeUrlToken();
  private readonly list = new NoteList($('note-list'), $('note-more'), {
    edit: (note) => this.startEdit(note),
    tag: (id, tag) => this.guard(this.writes.tag(id, tag)),
    untag: (id, tag) => this.guard(this.writes.untag(id, tag)),
    remove: (id) => this.guard(this.writes.remove(id)),
  });
  private opened!: (s: Storage) => void;
  /** Resolves whenever the store opens, at once or after waiting for another tab. */
  readonly whenOpen = new Promise<Storage>((resolve) => { this.opened = resolve; });

  constructor() {
    $('note-form').addEventListener('submit', (e) => { e.preventDefault(); void this.save(); });
    $('note-cancel').addEventListener('click', () => this.resetForm());
    $('token-form').addEventListener('submit', (e) => { e.preventDefault(); void this.useToken(); });
    // A #token= link followed while the page is open changes only the fragment: no reload runs the constructor again.
    window.addEventListener('hashchange', () => {
      const token = takeUrlToken();
      if (token === undefined) return;
      // Before the store opens (another tab holds it) the token waits for begin().
      if (this.storage) this.linkToken(this.storage, token);
      else this.urlToken = token;
    });
    $('wait-button').addEventListener('click', () => void this.wait());
    $('stop-wait-button').addEventListener('click', () => this.waiter?.abort());
  }

  state(): AppState {
    const { phase, sync, notes, editing, error, persistent } = this;
    return { phase, id: this.storage?.id ?? null, persistent, sync, notes, editing, error };
  }

  /** Opens the store; rejects with LOCKED when another tab holds it (the page then offers to wait). */
  async start(): Promise<Storage> {
    try {
      const opened = await openStore();
      if ('locked' in opened) {
        this.lockedBy(opened.locked);
        throw opened.locked;
      }
      return this.begin(opened);
    } catch (e) {
      if (this.phase !== 'locked') this.failedOpen(e);
      throw e;
    }
  }

  /** Queue for the store's Web Lock until the other tab closes it (or Stop waiting). */
  private async wait(): Promise<void> {
    this.waiter = new AbortController();
    this.setPhase('waiting', 'waiting for the other tab to close these notes…');
    try {
      const opened = await openStore({ wait: true, signal: this.waiter.signal });
      if ('locked' in opened) this.lockedBy(opened.locked);
      else this.begin(opened);
    } catch (e) {
      this.failedOpen(e);
    }
  }

  private begin(opened: Exclude<Opened, { locked: Error }>): Storage {
    const storage = (this.storage = opened.storage);
    this.writes = noteWrites(storage);
    this.persistent = opened.persistent;
    this.setPhase('ready', 'opened');
    this.fail(null);
    $('node-id').textContent = storage.id;
    showBanner('storage-warning', opened.warning ?? null);
    $<HTMLFieldSetElement>('note-fieldset').disabled = false;
    watchSync(storage, this.url, (v) => {
      this.sync = v;
      showSync($('sync-state'), $('bootstrap-progress'), v);
    });
    const index = (this.index = new NoteIndex(storage));
    storage.on('change', (op) => {
      index.touch(op.id);
      this.refresh();
    });
    this.refresh();
    this.linkToken(storage, this.urlToken);
    this.opened(storage);
    return storage;
  }

  /**
   * Dial the hub with the token a link brought, or the registered one. A
   * link's token takes the place of a registered one only when the user says
   * so (Use token): any site can link here with a token of its choosing,
   * which had replaced the user's and synced under its owner's.
   */
  private linkToken(storage: Storage, token: string | undefined): void {
    const known = knownToken(storage, this.url);
    const registered = storage.sync.listNodes().some((n) => n.url === this.url);
    const offered = token !== undefined && registered && token !== known;
    $<HTMLInputElement>('token-input').value = token ?? known;
    showBanner('token-offer', offered ? 'The link that opened this page brings another hub token than the one these notes use. Use token (below) switches to it.' : null);
    void this.guard(dialHub(storage, this.url, offered ? undefined : token));
  }

  /** Another tab holds the store: the banner offers to wait; the engine's message goes to state().error. */
  private lockedBy(error: Error): void {
    this.error = message(error);
    this.setPhase('locked', 'open in another tab');
  }

  private failedOpen(e: unknown): void {
    this.fail(e);
    this.setPhase('failed', `could not open the store: ${message(e)}`);
  }

  private setPhase(phase: Phase, line: string): void {
    this.phase = phase;
    $('locked').hidden = phase !== 'locked' && phase !== 'waiting';
    $('wait-button').hidden = phase !== 'locked';
    $('stop-wait-button').hidden = phase !== 'waiting';
    if (phase !== 'ready') showPhase($('sync-state'), phase, line);
  }

  /** Re-reads the notes after a change (the Refresher: one read at a time, a failed one shown and retried). */
  private refresh(): void {
    if (this.storage) this.refresher.request();
  }

  private async save(): Promise<void> {
    const title = $<HTMLInputElement>('note-title').value;
    const body = $<HTMLTextAreaElement>('note-body').value;
    const id = this.editing;
    if (await this.guard(id ? this.writes.edit(id, { title, body }) : this.writes.create(title, body))) this.resetForm();
  }

  private startEdit(note: Note): void {
    this.editing = note.id;
    $<HTMLInputElement>('note-title').value = note.title;
    $<HTMLTextAreaElement>('note-body').value = note.body;
    $('note-save').textContent = 'Save changes';
    $('note-cancel').hidden = false;
    void this.guard(this.writes.view(note.id));
  }

  private resetForm(): void {
    this.editing = null;
    $<HTMLFormElement>('note-form').reset();
    $('note-save').textContent = 'Save';
    $('note-cancel').hidden = true;
  }

  private async useToken(): Promise<void> {
    if (!this.storage) return;
    showBanner('token-offer', null);
    await this.guard(dialHub(this.storage, this.url, $<HTMLInputElement>('token-input').value.trim()));
  }

  /** Runs a write; a failure is shown on the page, never thrown at the event loop. Resolves whether it worked. */
  private async guard(work: Promise<unknown>): Promise<boolean> {
    try {
      await work;
      this.fail(null);
      return true;
    } catch (e) {
      this.fail(e);
      return false;
    }
  }

  private fail(e: unknown): void {
    this.showError(e === null ? null : message(e));
  }

  private showError(line: string | null): void {
    this.error = line;
    showBanner('app-error', line);
  }
}

function message(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  const text = e instanceof Error ? e.message : String(e);
  return typeof code === 'string' ? `${code}: ${text}` : text;
}

function showBanner(id: string, text: string | null): void {
  const el = $(id);
  el.hidden = text === null;
  el.textContent = text ?? '';
}
