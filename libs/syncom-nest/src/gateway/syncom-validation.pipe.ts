import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { WsException } from '@nestjs/websockets';
import { IsArray } from 'class-validator';
import { envelopeRefusal } from './envelope-precheck';
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

/**
 * The deepest an envelope nests, opaque arrays aside: a reconcile message,
 * the deepest, uses six levels. class-transformer and class-validator
 * recurse, so a deeper frame is refused before they walk it.
 */
export const MAX_ENVELOPE_DEPTH = 32;

/** Whether a value nests at most `max` levels of arrays and objects; iterative, so any depth is measured safely. */
function depthWithin(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [x, depth] = stack.pop() as [unknown, number];
    if (typeof x !== 'object' || x === null) continue;
    if (depth >= max) return false;
    for (const child of Object.values(x)) stack.push([child, depth + 1]);
  }
  return true;
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
    try {
      return await this.check(value, metadata);
    } catch (e) {
      // class-transformer recurses: a frame nested thousands deep overflows it (a RangeError the filter would answer 500).
      if (e instanceof WsException) throw e;
      throw wsRefusal('BAD_REQUEST', 400, 'malformed message');
    }
  }

  private async check(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const keys = opaqueKeys(metadata.metatype);
    if (keys.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return this.checkView(value, metadata);
    const view: Record<string, unknown> = { ...value };
    const held: Record<string, unknown> = {};
    for (const key of keys) {
      if (!Array.isArray(view[key])) continue;
      held[key] = view[key];
      view[key] = [];
    }
    const checked = (await this.checkView(view, metadata)) as Record<string, unknown>;
    return { ...checked, ...held };
  }

  /**
   * The envelope bar its opaque arrays: refused before class-transformer
   * walks it when it nests deeper than any envelope does, or when the cheap
   * pre-check finds a refusal the full check is certain of.
   */
  private checkView(view: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Only what the pipe validates: the socket of @ConnectedSocket() is no envelope.
    if (this.toValidate(metadata)) {
      if (!depthWithin(view, MAX_ENVELOPE_DEPTH)) throw wsRefusal('BAD_REQUEST', 400, `the message nests deeper than ${MAX_ENVELOPE_DEPTH} levels`);
      const why = this.earlyRefusal(view, metadata);
      if (why !== null) throw wsRefusal('BAD_REQUEST', 400, why);
    }
    return super.transform(view, metadata) as Promise<unknown>;
  }

  /**
   * Why the full check would certainly refuse the envelope, found without
   * copying it (envelope-precheck.ts: a refusal costs a few microseconds
   * instead of tens), or null when the full check must decide.
   */
  protected earlyRefusal(view: unknown, metadata: ArgumentMetadata): string | null {
    return typeof metadata.metatype === 'function' ? envelopeRefusal(metadata.metatype, view) : null;
  }
}
