import type { SyncView } from './sync-state';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The sync-state element's line for a view. */
export function syncLine(v: SyncView): string {
  const waiting = v.unacked > 0 ? ` (${plural(v.unacked, 'write')} waiting)` : '';
  switch (v.state) {
    case 'synced': return 'connected · in sync';
    case 'behind': return `connected · behind: ${v.unacked} not yet acknowledged, ${v.incoming} to receive`;
    case 'bootstrapping': return `connected · loading ${v.bootstrap?.received ?? 0}${v.bootstrap?.total === undefined ? '' : ` of ${v.bootstrap.total}`} records`;
    case 'unauthorized': return `disconnected · the hub refused the token: enter it below${waiting}`;
    case 'disconnected': return `disconnected · writes stay here and sync when the hub is back${waiting}`;
  }
}

/** Shows `v` on the sync-state element (data-state, data-connected, data-unacked, data-incoming) and the bootstrap progress bar. */
export function showSync(el: HTMLElement, bar: HTMLProgressElement, v: SyncView): void {
  Object.assign(el.dataset, { state: v.state, connected: String(v.connected), unacked: String(v.unacked), incoming: String(v.incoming) });
  el.textContent = syncLine(v);
  el.title = v.error ?? '';
  bar.hidden = v.bootstrap === null;
  // Without a total the bar is indeterminate (no value attribute).
  if (v.bootstrap?.total) {
    bar.max = v.bootstrap.total;
    bar.value = v.bootstrap.received;
  } else bar.removeAttribute('value');
}

/** Shows a phase before sync exists (opening, locked, waiting, failed) on the sync-state element. */
export function showPhase(el: HTMLElement, phase: string, line: string): void {
  Object.assign(el.dataset, { state: phase, connected: 'false' });
  el.textContent = line;
}
