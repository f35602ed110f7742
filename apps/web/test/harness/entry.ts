// The low-level tests' page: the browser entry (syncom/browser) and the
// socket.io link (syncom/socket.io) on globalThis, so a test can open stores,
// dial, sign and verify from page.evaluate. Relative imports: the sources are
// bundled as they are, no dist needed.
import { io } from 'socket.io-client';
import * as syncom from '../../../../libs/syncom/src/browser';
import * as link from '../../../../libs/syncom/src/socket.io';

/** What the page holds, for page.evaluate's callbacks: `(globalThis as unknown as PageGlobals).syncom`. */
export interface PageGlobals {
  syncom: typeof syncom;
  syncomLink: typeof link & { io: typeof io };
  /** Whatever a test keeps between evaluate calls (open stores, counters). */
  t: Record<string, any>;
}

Object.assign(globalThis, { syncom, syncomLink: { ...link, io }, t: {} } satisfies PageGlobals);
