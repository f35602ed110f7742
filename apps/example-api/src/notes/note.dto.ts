import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';

/** POST /notes. */
export class CreateNoteDto {
  @IsString() @MaxLength(500) title!: string;
  @IsOptional() @IsString() @MaxLength(100_000) body?: string;
}

/** PATCH /notes/:id: the listed fields, last writer wins per field. */
export class UpdateNoteDto {
  @IsOptional() @IsString() @MaxLength(500) title?: string;
  @IsOptional() @IsString() @MaxLength(100_000) body?: string;
}

/** POST /notes/:id/tags. */
export class AddTagsDto {
  @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(100, { each: true }) add!: string[];
}

/** DELETE /notes/:id/tags. */
export class RemoveTagsDto {
  @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(100, { each: true }) remove!: string[];
}
