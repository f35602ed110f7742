import type { Storage } from 'syncom/browser';
import { type AppState, NotesApp } from './app';

/** What tests (and a curious console) reach on window.syncomApp; apps/web/README.md lists it. */
export interface SyncomApp {
  /** The open store; undefined until it opens. */
  readonly storage: Storage | undefined;
  /** The first open: resolves with the store, rejects (LOCKED when another tab holds it). */
  ready: Promise<Storage>;
  /** Resolves whenever the store opens: at once, or after "Wait for that tab to close". */
  whenOpen: Promise<Storage>;
  state(): AppState;
}

declare global {
  interface Window {
    syncomApp: SyncomApp;
  }
}

const app = new NotesApp();
const ready = app.start();
// The page shows a failed open; a test that never awaits ready must not see an unhandled rejection.
ready.catch(() => undefined);
window.syncomApp = {
  get storage() {
    return app.storage;
  },
  ready,
  whenOpen: app.whenOpen,
  state: () => app.state(),
};
