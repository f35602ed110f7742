export { createSchema } from './schema';
export { schemaDrift } from './drift';
export type { RecordClass, Schema, SchemaInfo, SchemaOptions, Validation } from './types';
export { provideSchemaPeers } from './provide-peers';
export type { SchemaPeers } from './provide-peers';
