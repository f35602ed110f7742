import { setSchemaPeers, type LoadedPeers } from './peers';

/**
 * class-validator and class-transformer as a schema uses them, typed loosely
 * here so that an app without them installed still compiles against syncom's
 * declarations (they are optional peers).
 */
export interface SchemaPeers {
  /** `await import('class-validator')` */
  validator: object;
  /** `await import('class-transformer')` */
  transformer: object;
}

/**
 * Hand the schema's peer packages in, for a platform without `require` (a
 * browser bundle): `provideSchemaPeers({ validator: await import('class-validator'),
 * transformer: await import('class-transformer') })` before open({ schema }).
 * Import 'reflect-metadata' first where record classes use `@Type()`.
 */
export function provideSchemaPeers(peers: SchemaPeers): void {
  setSchemaPeers(peers as LoadedPeers);
}
