import { Type } from 'class-transformer';
import { IsDateString, IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';

/** A nested value checked through @ValidateNested. */
export class Author {
  @IsString()
  name!: string;
}

/** The record type most tests use: a register, a default set-like field, an optional date string. */
export class Note {
  @IsString()
  title!: string;

  @IsString({ each: true })
  tags: string[] = [];

  @IsOptional()
  @IsInt()
  @Min(0)
  rank?: number;

  @IsOptional()
  @IsDateString()
  due?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Author)
  author?: Author;
}

/** Builds a fresh class with Note-like constraints, so two builds can be compared (class names must not count). */
export function buildNoteClass(variant: { minRank?: number; defaultTags?: string[]; extra?: boolean } = {}) {
  const { minRank = 0, defaultTags = [], extra = false } = variant;
  class Built {
    @IsString()
    title!: string;

    @IsString({ each: true })
    tags: string[] = [...defaultTags];

    @IsOptional()
    @IsInt()
    @Min(minRank)
    rank?: number;
  }
  if (!extra) return Built;
  class WithExtra extends Built {
    @IsOptional()
    @IsString()
    subtitle?: string;
  }
  return WithExtra;
}
