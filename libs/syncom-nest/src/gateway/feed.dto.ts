import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';

/** The arguments of a changes subscription: the scopes asked for (none: all granted). */
export class ChangesArgsDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @IsString({ each: true })
  scopes?: string[];
}

/** The `changes` envelope: the client's sub id for this opening, its args, and where to resume (PROTO-6). */
export class ChangesDto {
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
export class UnsubscribeDto {
  @IsString()
  @Length(1, 64)
  sub!: string;
}

/** The `chunk` envelope: pull the next chunk of a snapshot stream, or (cancel) drop it. */
export class ChunkDto {
  @IsString()
  @Length(1, 64)
  stream!: string;

  @IsOptional()
  @IsBoolean()
  cancel?: boolean;
}
