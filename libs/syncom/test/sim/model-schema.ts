import { IsInt, IsOptional } from 'class-validator';

/**
 * The schemas of the model's schema mode (model-world.ts): version 1 and 2
 * name the same type, so the only thing an older node does with a newer
 * op is hold it (`ahead: 'hold'`) until it is upgraded. The type refuses no
 * value the model writes: a refusal of a peer's op by a type that came
 * later is a documented exception (docs/guarantees.md), which live sync
 * alone does not heal.
 */
class Item {
  @IsOptional()
  @IsInt()
  a?: number;

  @IsOptional()
  @IsInt()
  b?: number;
}

/** An untyped record is not validated; `$type: 'Item'` is, and a record changes type both ways. */
export const schemaAt = (version: 1 | 2) => ({ version, types: { Item }, ahead: 'hold' as const });
