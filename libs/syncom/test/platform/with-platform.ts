import { installPlatform, platform, type Platform } from '../../src/platform';
import { webPlatform } from '../../src/platform/web';

/** Run `fn` with `p` installed, putting the previous platform back after (even when fn throws). */
export async function withPlatform<T>(p: Platform, fn: () => Promise<T> | T): Promise<T> {
  const previous = platform();
  installPlatform(p);
  try {
    return await fn();
  } finally {
    installPlatform(previous);
  }
}

/** The browser's platform under Node: Node 20's globalThis.crypto.subtle has Ed25519. */
export const web = webPlatform;
