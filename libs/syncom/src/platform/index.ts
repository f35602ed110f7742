import { SyncomError } from '../errors';
import type { Platform } from './types';

export type { Ed25519, PemKeyPair, Platform, PlatformExtras, PlatformKey, Sealing, SealingKeys, SigTarget, VerifyItem } from './types';

let current: Platform | undefined;

/**
 * Install the platform the engine runs on. Each entry does it as it loads
 * (`syncom`: Node's, `syncom/browser`: the browser's); a test may swap one
 * in and put the previous one back (the return value).
 */
export function installPlatform(p: Platform): Platform | undefined {
  const previous = current;
  current = p;
  return previous;
}

/**
 * The installed platform. Under Node with none installed (a module of the
 * engine loaded without an entry, as tests do) it is Node's, loaded by an
 * indirect require that bundlers leave out of a browser build.
 */
export function platform(): Platform {
  return current ?? (current = fallback());
}

function fallback(): Platform {
  const node = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
  const load = node && typeof require === 'function' ? require : undefined;
  if (!load) throw new SyncomError('UNSUPPORTED', 'No syncom platform is installed: in a browser, import the syncom/browser entry.');
  return (load('../node-platform') as { nodePlatformFull: Platform }).nodePlatformFull;
}
