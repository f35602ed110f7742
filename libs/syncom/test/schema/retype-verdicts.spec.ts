import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Validate, ValidateIf, ValidateNested, ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';
import { applyOp, type Entry } from '../../src/crdt';
import type { Op } from '../../src/op/types';
import { createSchema } from '../../src/schema';
import { mergedView } from '../../src/storage/local-ops';
import { retypeView } from '../../src/storage/retype-view';
import { Author } from './fixtures';

/**
 * A type change is judged from a view of the record's merge state
 * (retypeView, Schema.judgeRetype) and its verdict kept, where it was judged
 * from the whole record merged with the update (mergedView, validateWrite).
 * Only the cost may differ: the same verdicts, and every constraint sees the
 * same object (`args.object`: the same keys, in the same order, with the same
 * values), past 256 fields too, where only the class's declared fields are.
 */
const seen: string[] = [];

/** Records the object it is shown, and fails where it holds a field named `forbidden`. */
@ValidatorConstraint({ name: 'seesAll' })
class SeesAll implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    const o = args.object as Record<string, unknown>;
    seen.push(JSON.stringify(Object.entries(o)));
    return o.forbidden === undefined;
  }
}

class Strict {
  @Validate(SeesAll) $type!: string;
  @IsOptional() @IsString({ each: true }) tags?: string[];
  @ValidateIf((o: Strict) => o.kind === 'strict') @IsString() code?: string;
  @IsOptional() kind?: string;
  @IsInt() rank = 0;
  @IsOptional() @ValidateNested() @Type(() => Author) author?: Author;
}

class Loose {
  @IsOptional() @IsString() title?: string;
}

const schema = () => createSchema({ version: 1, types: { Strict, Loose } });

let ts = 1;
/** `e` with the ops applied, as a store holds it. */
function entryOf(ops: Partial<Op>[], e?: Entry): Entry {
  for (const op of ops) e = applyOp(e, { origin: 'o', seq: ts, ts: ts++, id: 'r', ...op } as Op).entry;
  return e!;
}

const wideData = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`w${i}`, i]));

const cases: [string, Partial<Op>[], Record<string, unknown>][] = [
  ['a small record', [{ type: 'write', data: { $type: 'Loose', title: 't', code: 5 } }], { $type: 'Strict' }],
  ['a field the new type refuses', [{ type: 'write', data: { $type: 'Loose', kind: 'strict', code: 5 } }], { $type: 'Strict' }],
  ['a field the update sets over the record\'s', [{ type: 'write', data: { $type: 'Loose', kind: 'strict', code: 5 } }], { $type: 'Strict', code: 'ok', rank: 2 }],
  ['an undeclared field a constraint reads', [{ type: 'write', data: { $type: 'Loose', forbidden: 1 } }], { $type: 'Strict' }],
  ['sets, counters and integer-like names', [
    { type: 'write', data: { $type: 'Loose', 10: 'ten', 2: 'two', b: 1, a: { x: [1] } } },
    { type: 'add', key: 'tags', value: ['x', 'y', 3] },
    { type: 'inc', key: 'views', value: 4 },
  ], { $type: 'Strict', 7: 'seven', z: null }],
  ['a register the update makes of a set', [{ type: 'write', data: { $type: 'Loose' } }, { type: 'add', key: 'tags', value: [1] }], { $type: 'Strict', tags: ['fine'] }],
  ['a nested value', [{ type: 'write', data: { $type: 'Loose', author: { name: 5 } } }], { $type: 'Strict' }],
  ['300 fields, one undeclared a constraint would read', [{ type: 'write', data: { $type: 'Loose', forbidden: 1, rank: 'x', ...wideData(300) } }], { $type: 'Strict' }],
  ['300 fields with a large set', [{ type: 'write', data: { $type: 'Loose', ...wideData(300) } }, { type: 'add', key: 'tags', value: Array.from({ length: 100 }, (_, i) => `t${i}`) }], { $type: 'Strict', kind: 'strict' }],
  ['a type with no class', [{ type: 'write', data: { $type: 'Strict', rank: 'bad' } }], { $type: 'Scratch' }],
];

describe('schema: a type change\'s verdict from the record\'s view', () => {
  it.each(cases)('%s: the same verdict as the whole merged record, each constraint shown the same object, and the kept verdict the same again', (_what, ops, update) => {
    const e = entryOf(ops);
    seen.length = 0;
    const merged = schema().validateWrite(mergedView(e, update));
    const before = [...seen];
    seen.length = 0;
    const s = schema();
    const judged = s.judgeRetype(retypeView(e, update));
    expect(judged).toEqual(merged.ok ? undefined : merged.errors);
    expect(seen).toEqual(before);
    seen.length = 0;
    expect(s.judgeRetype(retypeView(e, update))).toEqual(judged);
    expect(seen).toEqual([]);
  });

  it('a verdict is kept for one state: the record changed in a field, or the update another value, is judged anew', () => {
    const s = schema();
    const e = entryOf([{ type: 'write', data: { $type: 'Loose', kind: 'strict', code: 'a' } }]);
    expect(s.judgeRetype(retypeView(e, { $type: 'Strict' }))).toBeUndefined();
    const changed = entryOf([{ type: 'set', data: { code: 5 } }], e);
    expect(s.judgeRetype(retypeView(changed, { $type: 'Strict' }))).toEqual(['code must be a string']);
    expect(s.judgeRetype(retypeView(e, { $type: 'Strict', code: 6 }))).toEqual(['code must be a string']);
    expect(s.judgeRetype(retypeView(e, { $type: 'Strict' }))).toBeUndefined();
  });

  it('a schema keeps the latest 4,096 verdicts: one pushed out by as many others is judged anew', () => {
    const s = schema();
    const e = entryOf([{ type: 'write', data: { $type: 'Loose' } }]);
    const judge = (i: number) => s.judgeRetype(retypeView(e, { $type: 'Strict', kind: `k${i}` }));
    seen.length = 0;
    for (let i = 0; i <= 4096; i++) judge(i);
    expect(seen).toHaveLength(4097);
    judge(4096);
    judge(1);
    expect(seen).toHaveLength(4097);
    judge(0);
    expect(seen).toHaveLength(4098);
  });
});
