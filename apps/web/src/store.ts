import { io } from 'socket.io-client';
import { browserBackend, isSyncomError, open, type Storage } from 'syncom/browser';
import { createSocketIoLink } from 'syncom/socket.io';

/** The store's fixed name: its OPFS directory and its Web Lock, one per origin. */
export const STORE = 'syncom-notes';

/** How an open ended: the storage, or LOCKED by another tab. */
export type Opened = { storage: Storage; persistent: boolean; warning?: string } | { locked: Error };

/** The socket.io link to a node, as syncom-nest's default connect makes it (websocket only, the token at the handshake). */
function connect(node: { url: string; token?: string }) {
  return createSocketIoLink(io(node.url, { transports: ['websocket'], auth: { token: node.token } }));
}

/**
 * Opens the notes store on OPFS (browserBackend(): memory where the browser
 * has no OPFS, flagged not persistent). The keys live in the store, so the
 * node keeps its identity across reloads. Another tab holding the store is an
 * answer, not a failure: { locked }. With `wait`, the Web Lock request queues
 * until that tab closes the store (or `signal` aborts: LOCKED again).
 *
 * @throws whatever else open() throws (a damaged store, a refused OPFS write).
 */
export async function openStore(options: { wait?: boolean; signal?: AbortSignal } = {}): Promise<Opened> {
  const backend = await browserBackend({ dir: STORE, ...options });
  try {
    const storage = await open({ path: STORE, backend, sync: { connect } });
    return { storage, persistent: backend.persistent, warning: backend.warning };
  } catch (e) {
    if (isSyncomError(e, 'LOCKED')) return { locked: e };
    throw e;
  }
}

/**
 * Registers the hub (kept in the store's registry with its token) unless it
 * is registered with this token already; addNode() redials at once.
 * `token` undefined keeps the registered one.
 */
export async function dialHub(storage: Storage, url: string, token: string | undefined): Promise<void> {
  const known = storage.sync.listNodes().find((n) => n.url === url);
  const next = token ?? known?.token;
  if (known && known.token === next) return;
  await storage.sync.addNode(next === undefined ? { url } : { url, token: next });
}

/** The registered token of `url`, for the token input. */
export function knownToken(storage: Storage, url: string): string {
  return storage.sync.listNodes().find((n) => n.url === url)?.token ?? '';
}

/**
 * The token a link brought, taken out of the address bar: `#token=`, which
 * no request carries (not to the hub, a proxy's log or a Referer), or the
 * `?token=` of links made before it, which the hub's request line carries.
 */
export function takeUrlToken(): string | undefined {
  const url = new URL(location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const token = fragment.get('token') ?? url.searchParams.get('token');
  if (token === null) return undefined;
  fragment.delete('token');
  url.hash = fragment.toString();
  url.searchParams.delete('token');
  history.replaceState(null, '', url);
  return token;
}
