import type { Storage } from 'syncom/browser';

type PeerState = ReturnType<Storage['sync']['peers']>[number];

/** The sync-state element's data-state. */
export type SyncPhase = 'disconnected' | 'unauthorized' | 'bootstrapping' | 'behind' | 'synced';

/** What the page shows of sync with the hub. */
export interface SyncView {
  state: SyncPhase;
  connected: boolean;
  /** This node's ops the hub does not hold yet, as far as its last answer tells. */
  unacked: number;
  /** The hub's ops this node lacks, as far as its last answer tells (0 when not connected). */
  incoming: number;
  /** A bootstrap under way: records received, of total when the hub said. */
  bootstrap: { received: number; total?: number } | null;
  /** The last sync error, one line. */
  error: string | null;
}

/** This node's own ops the host lacks: its own streams in the vector, less what the host acknowledged (listNodes().acked). */
export function unackedOwn(self: string, vector: Readonly<Record<string, number>>, acked: Readonly<Record<string, number>>): number {
  let n = 0;
  for (const [key, seq] of Object.entries(vector)) {
    if (key === self || key.startsWith(`${self}@`)) n += Math.max(0, seq - (acked[key] ?? 0));
  }
  return n;
}

/** The phase from the dialer's state: a pure function, so every rule of it is plain to read. */
export function syncPhase(peer: PeerState | undefined, unacked: number, error: string | null): SyncPhase {
  if (!peer?.connected) return error?.startsWith('UNAUTHORIZED') ? 'unauthorized' : 'disconnected';
  if (peer.bootstrapping) return 'bootstrapping';
  const busy = !peer.subscribed || peer.pending > 0 || peer.behind || peer.stuck || (peer.incoming ?? 0) > 0;
  return busy || unacked > 0 ? 'behind' : 'synced';
}

/** The hub's url seen from the page: the hub serves the app, so it is the page's origin; the gateway is /syncom. */
export function hubUrl(origin: string): string {
  return `${origin}/syncom`;
}

/** A SyncView of `storage`'s link to `url`, read now. */
export function readSync(
  storage: Storage,
  url: string,
  seen: { progress: SyncView['bootstrap']; error: string | null },
): SyncView {
  const peer = storage.sync.peers().find((p) => p.url === url);
  const acked = storage.sync.listNodes().find((n) => n.url === url)?.acked ?? {};
  const unacked = unackedOwn(storage.id, storage.replica.vector, acked);
  const error = peer?.lastError ? `${peer.lastError.code}: ${peer.lastError.message}` : seen.error;
  const state = syncPhase(peer, unacked, error);
  return {
    state, connected: peer?.connected ?? false, unacked, incoming: peer?.incoming ?? 0,
    bootstrap: state === 'bootstrapping' ? seen.progress ?? { received: 0 } : null, error,
  };
}

/**
 * Calls `changed` whenever the sync state may have moved: every sync event,
 * every local write, and once a second (a push answered between events).
 * Returns the function that stops it.
 */
export function watchSync(storage: Storage, url: string, changed: (view: SyncView) => void): () => void {
  const seen: { progress: SyncView['bootstrap']; error: string | null } = { progress: null, error: null };
  let queued = false;
  // A bootstrap fires a change per record: read the state once per turn of the event loop, not per event.
  const emit = () => {
    if (queued) return;
    queued = true;
    setTimeout(() => { queued = false; changed(readSync(storage, url, seen)); }, 0);
  };
  const offs = [
    storage.sync.on('progress', (e) => { if (e.url === url) seen.progress = { received: e.received, total: e.total }; emit(); }),
    storage.sync.on('bootstrap', () => { seen.progress = null; emit(); }),
    storage.sync.on('error', (e) => { seen.error = `${e.code}: ${e.message}`; emit(); }),
    storage.sync.on('peer', (e) => { if (e.connected) seen.error = null; emit(); }),
    storage.sync.on('sync', emit),
    storage.on('change', emit),
  ];
  const timer = setInterval(emit, 1000);
  emit();
  return () => {
    clearInterval(timer);
    for (const off of offs) off();
  };
}
