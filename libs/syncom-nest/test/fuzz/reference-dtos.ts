import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize, IsArray, IsBoolean, IsInt, IsObject, IsOptional, IsString, Length, MaxLength, Min, ValidateNested,
} from 'class-validator';

/*
 * The gateway's envelopes as class-validator DTOs, the way the gateway
 * checked them until it read them itself (a class-transformer copy, then
 * class-validator). Kept here only as the fuzz's reference: whatever the
 * gateway's readers take, these took too. Not used by the gateway.
 */

/** A schema as hello carries it: `{ version, hash }` (SCHEMA-1). */
class SchemaInfoDto {
  @IsInt()
  version!: number;

  @IsString()
  @MaxLength(256)
  hash!: string;
}

/**
 * The `hello` envelope: the dialer's node id, version vector, log epoch,
 * schema, scopes and token (PROTO-4). The engine's checkHello checks the
 * vector's entries; this checks the envelope.
 */
class HelloDto {
  @IsString()
  @MaxLength(128)
  node!: string;

  @IsObject()
  vector!: Record<string, number>;

  @IsString()
  @MaxLength(64)
  epoch!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => SchemaInfoDto)
  schema?: SchemaInfoDto | null;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  scopes?: string[];

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  token?: string | null;

  /** The wire versions the dialer speaks; an older dialer sends none and speaks 1. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsInt({ each: true })
  versions?: number[];

  /** The dialer's capabilities. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  caps?: string[];
}

/** The `push` envelope: `{ ops }`, packed ops the engine checks one by one (PROTO-5). */
class PushDto {
  @IsArray()
  ops!: unknown[];
}

/** The `snapshot` envelope: which page of which paging, for which scopes, streamed or inline (PROTO-7). */
class SnapshotDto {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  token?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  offset?: number;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @IsString({ each: true })
  scopes?: string[];

  @IsOptional()
  @IsBoolean()
  stream?: boolean;
}

/** The arguments of a changes subscription: the scopes asked for (none: all granted). */
class ChangesArgsDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @IsString({ each: true })
  scopes?: string[];
}

/** The `changes` envelope: the client's sub id for this opening, its args, and where to resume (PROTO-6). */
class ChangesDto {
  @IsString()
  @Length(1, 64)
  sub!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => ChangesArgsDto)
  args?: ChangesArgsDto | null;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  lastEventId?: string;
}

/** The `unsubscribe` envelope: the sub id to end. */
class UnsubscribeDto {
  @IsString()
  @Length(1, 64)
  sub!: string;
}

/** The `chunk` envelope: pull the next chunk of a snapshot stream, or (cancel) drop it. */
class ChunkDto {
  @IsString()
  @Length(1, 64)
  stream!: string;

  @IsOptional()
  @IsBoolean()
  cancel?: boolean;
}

/**
 * The `reconcile` envelope: a scope label, one reconciliation
 * message and, on a run's first call, `start`. The engine decodes the message
 * and refuses a malformed one (400 RECONCILE_MALFORMED); this checks the envelope.
 */
class ReconcileDto {
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
class RecordsDto {
  @IsString()
  @Length(1, 128)
  scope!: string;

  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  ids!: string[];
}

/** The reference DTO of each message. */
export const REFERENCE: Record<string, Function> = {
  hello: HelloDto, push: PushDto, snapshot: SnapshotDto, reconcile: ReconcileDto, records: RecordsDto,
  changes: ChangesDto, unsubscribe: UnsubscribeDto, chunk: ChunkDto,
};

/** Nest's ValidationPipe as the gateway ran it: whitelist and forbidUnknownValues, the push's ops held aside (they were opaque). */
const pipe = new ValidationPipe({ whitelist: true, forbidUnknownValues: true });

/** Whether the old check took `value` as a `metatype` envelope (a throw of any kind is a refusal). */
export async function referenceTakes(metatype: Function, value: unknown): Promise<boolean> {
  let view = value;
  if (metatype === PushDto && typeof value === 'object' && value !== null && Array.isArray((value as { ops?: unknown }).ops)) view = { ...value, ops: [] };
  try {
    await pipe.transform(view, { type: 'body', metatype: metatype as never, data: undefined });
    return true;
  } catch {
    return false;
  }
}
