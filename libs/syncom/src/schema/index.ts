export { createSchema } from './schema';
export { schemaDrift } from './drift';
export type { RecordClass, Schema, SchemaInfo, SchemaOptions, Validation } from './types';
export { provideSchemaPeers } from './peers';
export type { SchemaPeers } from './peers';
