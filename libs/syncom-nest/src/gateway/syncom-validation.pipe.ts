import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { IsArray } from 'class-validator';
import { wsRefusal } from './syncom-refusal';

const OPAQUE_KEYS = Symbol('syncom:opaque-keys');

/**
 * Marks a DTO property as an array the pipe checks for being an array and
 * otherwise hands on untouched: the push's ops, whose shape the engine checks
 * op by op (and counts the malformed ones).
 */
export function OpaqueArray(): PropertyDecorator {
  return (target, key) => {
    IsArray()(target, key);
    const keys = (Reflect.getMetadata(OPAQUE_KEYS, target.constructor) as (string | symbol)[] | undefined) ?? [];
    Reflect.defineMetadata(OPAQUE_KEYS, [...keys, key], target.constructor);
  };
}

function opaqueKeys(metatype: unknown): string[] {
  if (typeof metatype !== 'function') return [];
  const keys = Reflect.getMetadata(OPAQUE_KEYS, metatype) as (string | symbol)[] | undefined;
  return (keys ?? []).filter((k): k is string => typeof k === 'string');
}

/** The constraint messages of class-validator's errors, nested ones included. */
function describe(errors: ValidationError[], path = ''): string[] {
  return errors.flatMap((e) => [
    ...Object.values(e.constraints ?? {}).map((m) => (path ? `${path}.${m}` : m)),
    ...describe(e.children ?? [], path ? `${path}.${e.property}` : e.property),
  ]);
}

/**
 * The gateway's ValidationPipe: whitelist and forbidUnknownValues on, and a
 * refusal as a WsException `{ code: 'BAD_REQUEST', status: 400 }` the
 * exception filter answers on the ack. Arrays marked @OpaqueArray() are held
 * aside while the envelope is checked, because class-transformer copies them
 * and the pipe deletes `__proto__`, `constructor` and `prototype` keys deep
 * inside, which would change a record's data under its op's signature.
 */
export class SyncomValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidUnknownValues: true,
      exceptionFactory: (errors) => wsRefusal('BAD_REQUEST', 400, describe(errors).slice(0, 5).join('; ') || 'malformed message'),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const keys = opaqueKeys(metadata.metatype);
    if (keys.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return super.transform(value, metadata);
    const view: Record<string, unknown> = { ...value };
    const held: Record<string, unknown> = {};
    for (const key of keys) {
      if (!Array.isArray(view[key])) continue;
      held[key] = view[key];
      view[key] = [];
    }
    const checked = (await super.transform(view, metadata)) as Record<string, unknown>;
    return { ...checked, ...held };
  }
}
