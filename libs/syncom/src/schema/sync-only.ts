import { nestedClass } from './nested';
import { loadSchemaPeers } from './peers';
import type { RecordClass } from './types';

/** An `async function` (or async method): what it returns is always a promise. */
function isAsyncFunction(fn: unknown): boolean {
  return typeof fn === 'function' && /^\[object Async/.test(Object.prototype.toString.call(fn));
}

/**
 * The first constraint of `cls` (inherited ones and its nested classes' included)
 * that answers with a promise: `@ValidatorConstraint({ async: true })`, or a
 * `validate` written as an async method. A schema validates synchronously
 * (validateSync, on every local write and every peer's op), where
 * class-validator skips the first kind — the write passes unchecked — and
 * drops the second's promise: it passed too, and a rejection of it was
 * unhandled, which ended the process on a value a peer chose.
 */
export function asyncConstraint(cls: RecordClass, seen = new Set<RecordClass>()): string | undefined {
  if (seen.has(cls)) return undefined;
  seen.add(cls);
  const storage = loadSchemaPeers().validator.getMetadataStorage();
  for (const m of storage.getTargetValidationMetadatas(cls, '', true, false)) {
    if (m.type === 'customValidation' && m.constraintCls) {
      for (const c of storage.getTargetValidatorConstraints(m.constraintCls)) {
        const validate: unknown = (c.target as { prototype?: { validate?: unknown } }).prototype?.validate;
        if (c.async || isAsyncFunction(validate)) return `${cls.name}.${m.propertyName} (${c.name || 'a custom constraint'})`;
      }
    }
    if (m.type === 'nestedValidation') {
      const nested = nestedClass(cls, m.propertyName);
      const found = nested && asyncConstraint(nested, seen);
      if (found) return found;
    }
  }
  return undefined;
}
