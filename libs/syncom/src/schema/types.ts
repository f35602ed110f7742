/** A record class class-validator can validate: constructible with no arguments. */
export type RecordClass = new () => object;

/** What `open({ schema })` takes: the node's validators and their version. */
export interface SchemaOptions {
  /** The schema version, a non-negative integer; it rides on every op as `v`. */
  version: number;
  /** Record type name -> class-validator class. */
  types: Record<string, RecordClass>;
  /** Which data field names the record type; default `'$type'`. */
  typeField?: string;
  /** What a peer op with `v > version` does: wait in the log (`'hold'`, the default) or apply. */
  ahead?: 'hold' | 'apply';
}

/** What a node says about its schema in hello: its version and hash (Schemas). */
export interface SchemaInfo {
  version: number;
  hash: string;
}

/** The outcome of a validation: the data to write, or why not. */
export type Validation = { ok: true; data: Record<string, unknown> } | { ok: false; errors: string[] };

/** A built schema: validates writes and describes itself by version and hash. */
export interface Schema {
  readonly version: number;
  /** Hex SHA-256 of the schema's canonical description. */
  readonly hash: string;
  readonly ahead: 'hold' | 'apply';
  readonly typeField: string;
  /** `{ version, hash }`, as hello carries it. */
  info(): SchemaInfo;
  /** A whole-record write: validate and fold the class's defaults into the data (returned data includes defaults). */
  validateWrite(data: Record<string, unknown>): Validation;
  /** A set (update) of some fields: validate `merged` (the record with the update merged in), skipping missing properties; returns `merged` unchanged. */
  validateUpdate(merged: Record<string, unknown>): Validation;
}
