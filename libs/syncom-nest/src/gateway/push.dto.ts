import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { OpaqueArray } from './syncom-validation.pipe';

/** The `push` envelope: `{ ops }`, packed ops the engine checks one by one (PROTO-5). */
export class PushDto {
  @OpaqueArray()
  ops!: unknown[];
}

/** The `snapshot` envelope: which page of which paging, for which scopes, streamed or inline (PROTO-7). */
export class SnapshotDto {
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
