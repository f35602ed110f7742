import { loadSchemaPeers } from './peers';
import type { RecordClass } from './types';

/** An item of a transformed value: the value itself, an array's first item or a Map's first value. */
function firstItem(value: unknown): unknown {
  if (Array.isArray(value)) return value[0];
  if (value instanceof Map) return value.values().next().value;
  return value;
}

/**
 * The class a nested property's value becomes (class-transformer's `@Type`),
 * read by transforming an empty value (an object, an array of one, an object
 * of one entry for a Map-typed field) as a write would; undefined where there
 * is none or it cannot be told. For a discriminator, the class its type
 * function answers (the one a value naming no subtype becomes): its
 * subtypes are listed in class-transformer's private store alone, which a
 * browser bundle cannot reach, and a hash counting them on Node only would
 * have Node and browser peers of one build report drift to each other.
 */
export function nestedClass(cls: RecordClass, property: string): RecordClass | undefined {
  for (const probe of [{}, [{}], { entry: {} }]) {
    try {
      const made = loadSchemaPeers().transformer.plainToInstance(cls, { [property]: probe }) as Record<string, unknown>;
      const item = firstItem(made[property]);
      const ctor = typeof item === 'object' && item !== null ? (item.constructor as unknown) : undefined;
      if (typeof ctor === 'function' && ctor !== Object && ctor !== Array) return ctor as RecordClass;
    } catch {
      // A @Type or @Transform that refuses an empty value: its class cannot be told here.
    }
  }
  return undefined;
}
