import { ArrayMaxSize, IsArray, IsBoolean, IsObject, IsOptional, IsString, Length, MaxLength } from 'class-validator';

/**
 * The `reconcile` envelope (issue 6.2): a scope label, one reconciliation
 * message and, on a run's first call, `start`. The engine decodes the message
 * and refuses a malformed one (400 RECONCILE_MALFORMED); this checks the envelope.
 */
export class ReconcileDto {
  @IsString()
  @Length(1, 128)
  scope!: string;

  @IsObject()
  msg!: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  start?: boolean;
}

/** The `records` envelope: a scope label and the ids to fetch (the unit caps them at its pageSize). */
export class RecordsDto {
  @IsString()
  @Length(1, 128)
  scope!: string;

  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  ids!: string[];
}
