import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';

/** The most records GET /notes reads for one answer. */
export const NOTES_PAGE = 500;

/** GET /notes?after=<id>&limit=<n>: a page of the records in id order (notes only), after an id. */
export class ListNotesDto {
  // Any record id, up to the engine's 512 characters: a peer may write one that long, and paging must step past it.
  @IsOptional() @IsString() @MaxLength(512) after?: string;
  // Checked as text, decimal digits from 1 to NOTES_PAGE (500) only: a conversion to Number first
  // would also take '0x10', '1e2' and ' 5 '.
  @IsOptional() @Matches(/^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$/, { message: `limit must be a decimal integer from 1 to ${NOTES_PAGE}` })
  limit?: string;
}

/** POST /notes. */
export class CreateNoteDto {
  @IsString() @MaxLength(500) title!: string;
  @IsOptional() @IsString() @MaxLength(100_000) body?: string;
}

/**
 * PATCH /notes/:id: the listed fields, last writer wins per field. `views` and
 * `tags` are accepted so that setting a counter or a set this way answers 409
 * KIND_CLASH naming the right call (POST views, POST/DELETE tags), as the
 * storage says; on a note that never had them they become plain fields.
 */
export class UpdateNoteDto {
  // Absent is no change; null is refused like any other wrong type (@IsOptional let null through, and stored it).
  @ValidateIf((o: UpdateNoteDto) => o.title !== undefined) @IsString() @MaxLength(500) title?: string;
  @ValidateIf((o: UpdateNoteDto) => o.body !== undefined) @IsString() @MaxLength(100_000) body?: string;
  // A safe integer: 1e300 was stored, and 9007199254740993 stored as ...992.
  @ValidateIf((o: UpdateNoteDto) => o.views !== undefined) @IsInt() @Min(Number.MIN_SAFE_INTEGER) @Max(Number.MAX_SAFE_INTEGER) views?: number;
  @ValidateIf((o: UpdateNoteDto) => o.tags !== undefined) @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(100, { each: true }) tags?: string[];
}

/** POST /notes/:id/views: adds `by` (1 when absent); a null is refused like any other non-integer. */
export class AddViewsDto {
  @ValidateIf((o: AddViewsDto) => o.by !== undefined) @IsInt() @Min(1) @Max(1_000_000) by?: number;
}

/** POST /notes/:id/tags. */
export class AddTagsDto {
  @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(100, { each: true }) add!: string[];
}

/** DELETE /notes/:id/tags. */
export class RemoveTagsDto {
  @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(100, { each: true }) remove!: string[];
}
