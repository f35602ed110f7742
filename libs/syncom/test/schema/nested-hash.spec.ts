import { Type } from 'class-transformer';
import { IsDate, IsInt, IsNumber, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { createSchema, schemaDrift } from '../../src/schema';
import { buildNoteClass } from './fixtures';

const hashOf = (types: Record<string, new () => object>, version = 1) => createSchema({ version, types }).hash;

/** A record class with a nested Author (`@Type`), built fresh so two builds can be compared. */
function buildPost(variant: { nameAs?: 'string' | 'int'; authorsAsArray?: boolean; deep?: number } = {}) {
  const { nameAs = 'string', deep = 0 } = variant;
  class Address {
    @IsInt() @Min(deep) zip!: number;
  }
  class Author {
    @(nameAs === 'string' ? IsString() : IsInt()) name!: string;
    @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
  }
  class Post {
    @IsString() title!: string;
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Author) authors?: Author[];
    @IsOptional() @ValidateNested() @Type(() => Author) author?: Author;
  }
  return Post;
}

/** A record class whose `shape` is one of a discriminator's subtypes. */
function buildDrawing(variant: { radiusMin?: number; withTriangle?: boolean; reversed?: boolean } = {}) {
  const { radiusMin = 0, withTriangle = false, reversed = false } = variant;
  class Shape { @IsString() kind!: string; }
  class Circle extends Shape { @IsNumber() @Min(radiusMin) radius!: number; }
  class Square extends Shape { @IsNumber() side!: number; }
  class Triangle extends Shape { @IsNumber() base!: number; }
  const subTypes: { value: new () => Shape; name: string }[] = [{ value: Circle, name: 'circle' }, { value: Square, name: 'square' }];
  if (withTriangle) subTypes.push({ value: Triangle, name: 'triangle' });
  if (reversed) subTypes.reverse();
  class Drawing {
    @ValidateNested()
    @Type(() => Shape, { discriminator: { property: 'kind', subTypes }, keepDiscriminatorProperty: true })
    shape!: Shape;
  }
  return Drawing;
}

/** A class that refers to itself (a tree) and two that refer to each other. */
function buildTree(minValue = 0, pongAs: 'string' | 'int' = 'string') {
  class Node {
    @IsInt() @Min(minValue) value!: number;
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Node) children?: Node[];
  }
  class Ping { @IsString() p!: string; @IsOptional() @ValidateNested() @Type(() => Pong) pong?: unknown; }
  class Pong { @(pongAs === 'string' ? IsString() : IsInt()) q!: string; @IsOptional() @ValidateNested() @Type(() => Ping) ping?: Ping; }
  return { Node, Ping };
}

describe('schema hash: nested classes', () => {
  it('SCHEMA-5: a flat schema keeps the hash it had before nested classes counted (rolling upgrades see no drift)', () => {
    class A { @IsString() a!: string; }
    expect(hashOf({ Note: buildNoteClass() })).toBe('1869177a054a4bfe1a84a8bf7b541ee515596ca26df88275fb5ba6d5f7645145');
    expect(createSchema({ version: 2, types: { Note: buildNoteClass({ extra: true }), A }, typeField: 'kind' }).hash)
      .toBe('d395f962a97c13feab876326c024acee5e40de07fd6d9fac46613a3fc6e3fc8a');
  });

  it('SCHEMA-5: a nested class\'s constraint changes the hash, where the two builds judge the same data differently', () => {
    const one = createSchema({ version: 1, types: { Post: buildPost() } });
    const two = createSchema({ version: 1, types: { Post: buildPost({ nameAs: 'int' }) } });
    const data = { $type: 'Post', title: 't', author: { name: 'Ann' } };
    expect(one.validateWrite(data).ok).toBe(true);
    expect(two.validateWrite(data).ok).toBe(false);
    expect(one.hash).not.toBe(two.hash);
    expect(schemaDrift(one.info(), two.info())).toBe(true);
  });

  it('counts a class nested in a nested class, and two identical builds hash alike', () => {
    expect(hashOf({ Post: buildPost() })).toBe(hashOf({ Post: buildPost() }));
    expect(hashOf({ Post: buildPost({ deep: 1 }) })).not.toBe(hashOf({ Post: buildPost() }));
  });

  it('SCHEMA-5: a discriminator counts its @Type class, not its subtypes, so Node and browser peers of one build hash alike', () => {
    const base = hashOf({ Drawing: buildDrawing() });
    expect(hashOf({ Drawing: buildDrawing({ reversed: true }) })).toBe(base);
    // The subtypes are listed only in class-transformer's private store, which a browser bundle cannot reach.
    expect(hashOf({ Drawing: buildDrawing({ radiusMin: 1 }) })).toBe(base);
    expect(hashOf({ Drawing: buildDrawing({ withTriangle: true }) })).toBe(base);
  });

  it('a class that refers to itself, or two that refer to each other, hash without looping', () => {
    const one = buildTree();
    const two = buildTree();
    expect(hashOf({ Tree: one.Node, Ping: one.Ping })).toBe(hashOf({ Tree: two.Node, Ping: two.Ping }));
    expect(hashOf({ Tree: buildTree(1).Node })).not.toBe(hashOf({ Tree: one.Node }));
    expect(hashOf({ Ping: buildTree(0, 'int').Ping })).not.toBe(hashOf({ Ping: one.Ping }));
    expect(hashOf({ Tree: one.Node })).not.toBe(hashOf({ Tree: buildNoteClass() }));
  });

  it('a reached class with nothing to check (a Date) is left out: the hash is the flat one', () => {
    class Plain { @IsDate() at!: Date; }
    class Typed { @IsDate() @Type(() => Date) at!: Date; }
    expect(hashOf({ Event: Typed })).toBe(hashOf({ Event: Plain }));
  });

});
