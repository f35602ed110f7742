import type { SchemaInfo } from './types';

/**
 * True when two nodes run two builds of "the same" schema that disagree: the
 * same version with another hash (SCHEMA-5/7). A different version is not
 * drift (that is what `v` on the ops is for), nor is a node without a schema.
 *
 * @example
 * schemaDrift({ version: 2, hash: 'a' }, { version: 2, hash: 'b' }) // true
 * schemaDrift({ version: 2, hash: 'a' }, { version: 3, hash: 'b' }) // false
 */
export function schemaDrift(local: SchemaInfo | null, peer: SchemaInfo | null): boolean {
  if (local === null || peer === null) return false;
  return local.version === peer.version && local.hash !== peer.hash;
}
