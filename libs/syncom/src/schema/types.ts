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
  /**
   * How far past `version` a version is held for, at most (default 1000): an op or a joined
   * state claiming a version further ahead is taken as this version's (validated, applied).
   * `Infinity` holds any version. Raise it where versions jump (a date as the version).
   */
  maxAhead?: number;
}

/** What a node says about its schema in hello: its version and hash (Schemas). */
export interface SchemaInfo {
  version: number;
  hash: string;
}

/** The outcome of a validation: the data to write, or why not. */
export type Validation = { ok: true; data: Record<string, unknown> } | { ok: false; errors: string[] };

/**
 * A record as a type change is judged on: a record's fields with an update
 * laid over them, read field by field, so a judge reads only the fields it
 * checks. Storage builds it from a record's merge state (storage/retype-view.ts).
 */
export interface RecordView {
  /** How many fields the record has, with the update's. */
  readonly size: number;
  /** Every field name, in the order a read of the record lists them (the record's, then the update's new ones). */
  names(): Iterable<string>;
  /** Whether the record or the update has the field. */
  has(name: string): boolean;
  /** The field's value, as a read of the record gives it (the update's where it sets the field). */
  read(name: string): unknown;
  /** A short text that is the same for two reads of the field only where its value is the same. */
  state(name: string): string;
}

/**
 * What judging type changes anew may spend (Schema.judgeRetype): a host
 * unit charges it to the rate of the peer whose op it judges, as that many
 * ops (docs/security.md, A token holder).
 */
export interface JudgeBudget {
  /** Called before a judgement reads the record; throws (the budget's own error) when none may start now. */
  open(): void;
  /** What a judgement read: each value of the record's data counts one, nested ones and set elements included. */
  charge(values: number): void;
}

/** A built schema: validates writes and describes itself by version and hash. */
export interface Schema {
  readonly version: number;
  /** Hex SHA-256 of the schema's canonical description. */
  readonly hash: string;
  readonly ahead: 'hold' | 'apply';
  /** How far past `version` a version is held for (SchemaOptions.maxAhead); absent: DEFAULT_MAX_AHEAD. */
  readonly maxAhead?: number;
  readonly typeField: string;
  /** `{ version, hash }`, as hello carries it. */
  info(): SchemaInfo;
  /** A whole-record write: validate and fold the class's defaults into the data (returned data includes defaults). */
  validateWrite(data: Record<string, unknown>): Validation;
  /** A set (update) of some fields: validate `merged` (the record with the update merged in), skipping missing properties; returns `merged` unchanged. */
  validateUpdate(merged: Record<string, unknown>): Validation;
  /**
   * An update that changes the record's type: `view` (the record with the
   * update laid over it) judged as a whole record of its new type, as
   * validateWrite judges it; the errors, or undefined when it passes. The
   * verdict is kept for the fields' states the validator reads, so judging
   * the same record of the same type again costs its fields, not its values.
   * A judgement anew is opened on `budget` and charged to it.
   *
   * @throws what `budget.open()` throws, before the record is read.
   */
  judgeRetype(view: RecordView, budget?: JudgeBudget): string[] | undefined;
}
