import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

/** A schema as hello carries it: `{ version, hash }` (SCHEMA-1). */
export class SchemaInfoDto {
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
export class HelloDto {
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

  /** The wire versions the dialer speaks (issue 6); an older dialer sends none and speaks 1. */
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
