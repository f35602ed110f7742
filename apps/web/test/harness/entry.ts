// The low-level tests' page: the browser entry (syncom/browser) and the
// socket.io link (syncom/socket.io) on globalThis, so a test can open stores,
// dial, sign and verify from page.evaluate, plus the helpers of page-kit.ts.
// Relative imports: the sources are bundled as they are, no dist needed.
import { io } from 'socket.io-client';
import * as syncom from '../../../../libs/syncom/src/browser';
import * as link from '../../../../libs/syncom/src/socket.io';
import { kit, type Kit } from './page-kit';

/** What the page holds, for page.evaluate's callbacks: `(globalThis as unknown as PageGlobals).kit`. */
export interface PageGlobals {
  syncom: typeof syncom;
  syncomLink: typeof link & { io: typeof io };
  kit: Kit;
}

Object.assign(globalThis, { syncom, syncomLink: { ...link, io }, kit } satisfies PageGlobals);
