import type * as ClassTransformer from 'class-transformer';
import type * as ClassValidator from 'class-validator';
import { SyncomError } from '../errors';

/**
 * The optional peer packages a schema runs on: loaded on first use, so a store
 * without a schema installs neither. Internal: its declaration names their
 * types, which an app without them could not compile (provide-peers.ts is the
 * public side).
 */
export interface LoadedPeers {
  validator: typeof ClassValidator;
  transformer: typeof ClassTransformer;
}

let loaded: LoadedPeers | undefined;

/** Whether this is Node.js, where `require` finds installed packages (a browser bundle has no require). */
const inNode = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';

/**
 * `require(name)`, or undefined when the package is not installed (any other
 * failure is thrown). The name is a variable, so bundlers leave the package
 * out of a browser build: there, {@link provideSchemaPeers} hands them in.
 */
function optionalRequire<T>(name: string): T | undefined {
  if (!inNode) return undefined;
  try {
    return require(name) as T;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes(`'${name}'`)) return undefined;
    throw e;
  }
}

// Loaded with the engine when installed, as the engine always did: record classes
// decorated with class-transformer's `@Type()` read design types through it as their
// module loads, before any schema is built.
optionalRequire('reflect-metadata');

/** What provideSchemaPeers() handed in (provide-peers.ts). */
export function setSchemaPeers(peers: LoadedPeers): void {
  loaded = peers;
}

/**
 * class-validator and class-transformer, required once (or as provideSchemaPeers gave them).
 *
 * @throws SyncomError INVALID_ARGUMENT naming the packages to install when either is missing.
 */
export function loadSchemaPeers(): LoadedPeers {
  if (loaded !== undefined) return loaded;
  const validator = optionalRequire<typeof ClassValidator>('class-validator');
  const transformer = optionalRequire<typeof ClassTransformer>('class-transformer');
  const missing = [validator ? null : 'class-validator', transformer ? null : 'class-transformer'].filter(Boolean);
  if (validator === undefined || transformer === undefined) {
    const how = inNode ? `install ${missing.join(' and ')} (npm install ${missing.join(' ')})` : 'in a browser, hand them in with provideSchemaPeers() first';
    throw new SyncomError(
      'INVALID_ARGUMENT',
      `schema: a schema needs class-validator and class-transformer; ${how}`,
    );
  }
  loaded = { validator, transformer };
  return loaded;
}
