import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';

/**
 * A cheap first look at an envelope, before class-transformer copies it and
 * class-validator walks the copy (tens of microseconds, more for a refusal,
 * which builds errors and an exception): it refuses what the full check is
 * certain to refuse — a message that is no object, a property of the wrong
 * type or length — by running class-validator's own constraints, from its
 * metadata, on the values as they came, and otherwise says nothing and the
 * full check runs. It never takes an envelope: only refusals are sped up.
 *
 * It is sound only where the full check sees the same values, so it looks
 * only at strings, numbers, booleans, null, undefined and plain arrays and
 * objects (what JSON makes; class-transformer copies them unchanged), skips
 * a property with a condition other than @IsOptional(), a per-rule
 * condition, groups, or class-transformer metadata (@Transform, @Expose,
 * @Exclude), and runs only the constraints it knows to judge a value by its
 * type or size alone. The envelope fuzz checks it against the full check.
 */

/** class-validator constraints whose verdict on a plain value is the verdict on class-transformer's copy of it. */
const PLAIN_RULES = new Set([
  'isString', 'isInt', 'isBoolean', 'isNumber', 'isObject', 'isArray', 'maxLength', 'minLength', 'isLength',
  'min', 'max', 'arrayMaxSize', 'arrayMinSize', 'arrayNotEmpty', 'isNotEmpty',
]);
/** The constraints that read an array's length, which closing a sparse array's gaps changes. */
const LENGTH_RULES = new Set(['arrayMaxSize', 'arrayMinSize', 'arrayNotEmpty']);

/**
 * The verdict of a constraint on a plain value where it is plain to see
 * (true or false), undefined where the constraint's own code must judge:
 * the validator package counts a string's length in user-perceived
 * characters with two regular expressions, which only matter near the bound.
 */
function quickVerdict(name: string, c: unknown[]): ((v: unknown) => boolean | undefined) | undefined {
  const n0 = typeof c[0] === 'number' ? c[0] : undefined;
  const n1 = typeof c[1] === 'number' ? c[1] : undefined;
  switch (name) {
    case 'isString': return (v) => typeof v === 'string';
    case 'isBoolean': return (v) => typeof v === 'boolean';
    case 'isInt': return (v) => typeof v === 'number' && Number.isInteger(v);
    case 'maxLength':
      // Fewer characters than code units, never more: within the bound in code units is within it.
      return n0 === undefined ? undefined : (v) => (typeof v !== 'string' ? false : v.length <= n0 ? true : undefined);
    case 'isLength':
      // At least a third of the code units are characters (a pair and a variation selector overlap at most that much).
      return n0 === undefined || n1 === undefined ? undefined
        : (v) => (typeof v !== 'string' || v.length < n0 ? false : v.length <= n1 && v.length >= 3 * n0 ? true : undefined);
    default: return undefined;
  }
}

interface Rule {
  name: string;
  each: boolean;
  quick?: (v: unknown) => boolean | undefined;
  validate: (value: unknown, args: ValidationArguments) => unknown;
  message: (args: ValidationArguments) => string;
  constraints: unknown[];
}

interface Property {
  name: string;
  optional: boolean;
  rules: Rule[];
  /** A @ValidateNested() property: a string, number or boolean there is refused (class-validator wants an object or array). */
  nested: boolean;
  /** Its @Type() class, when a plain object there is checked as that class in turn. */
  nestedPlan?: Plan | null;
  nestedType?: () => unknown;
}

interface Plan {
  target: Function;
  properties: Property[];
}

interface TransformerStorage {
  findTransformMetadatas(target: Function, propertyName: string, transformationType: number): unknown[];
  findExcludeMetadata(target: Function, propertyName: string): unknown;
  findExposeMetadata(target: Function, propertyName: string): unknown;
  findTypeMetadata(target: Function, propertyName: string): { typeFunction?: (o?: unknown) => unknown; options?: { discriminator?: unknown } } | undefined;
  getExposedMetadatas(target: Function): unknown[];
  getExcludedMetadatas(target: Function): unknown[];
}

/** class-transformer's metadata, which its package does not export by name: without it there is no pre-check. */
function transformerStorage(): TransformerStorage | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const storage = (require('class-transformer/cjs/storage') as { defaultMetadataStorage?: TransformerStorage }).defaultMetadataStorage;
    const needed = ['findTransformMetadatas', 'findExcludeMetadata', 'findExposeMetadata', 'findTypeMetadata', 'getExposedMetadatas', 'getExcludedMetadatas'] as const;
    return storage && needed.every((f) => typeof storage[f] === 'function') ? storage : undefined;
  } catch {
    return undefined;
  }
}

const TRANSFORMER = transformerStorage();
const PLAIN_TO_CLASS = 0;

const plans = new Map<Function, Plan | null>();

/** The plan of a class: its properties and their constraints, or null when it has none the pre-check may use. */
function planOf(target: Function): Plan | null {
  if (plans.has(target)) return plans.get(target) as Plan | null;
  plans.set(target, null); // a class nesting itself is checked one level deep
  const plan = buildPlan(target);
  plans.set(target, plan);
  return plan;
}

function buildPlan(target: Function): Plan | null {
  const t = TRANSFORMER;
  if (!t || t.getExposedMetadatas(target).length > 0 || t.getExcludedMetadatas(target).length > 0) return null;
  const storage = getMetadataStorage();
  // As ValidationPipe asks: no groups, always and strictGroups off.
  const metadatas = storage.getTargetValidationMetadatas(target, '', false, false, undefined);
  if (metadatas.length === 0) return null;
  const byName = new Map<string, typeof metadatas>();
  for (const m of metadatas) byName.set(m.propertyName, [...(byName.get(m.propertyName) ?? []), m]);
  const properties: Property[] = [];
  for (const [name, ms] of byName) {
    if (t.findTransformMetadatas(target, name, PLAIN_TO_CLASS).length > 0 || t.findExcludeMetadata(target, name) || t.findExposeMetadata(target, name)) continue;
    let usable = true;
    let optional = false;
    let nested = false;
    const rules: Rule[] = [];
    for (const m of ms) {
      if ((m.groups && m.groups.length > 0) || m.always !== undefined) { usable = false; break; }
      if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        if (m.name === 'isOptional') optional = true;
        else { usable = false; break; }
      } else if (m.type === ValidationTypes.NESTED_VALIDATION) {
        nested = true;
      } else if (m.type === ValidationTypes.CUSTOM_VALIDATION) {
        if (m.validateIf || !m.name || !PLAIN_RULES.has(m.name)) continue;
        const constraint = storage.getTargetValidatorConstraints(m.constraintCls);
        if (constraint.length !== 1 || constraint[0].async) continue;
        const instance = constraint[0].instance as { validate: Rule['validate']; defaultMessage?: (a: ValidationArguments) => string };
        const custom = m.message;
        rules.push({
          name: m.name,
          quick: quickVerdict(m.name, (m.constraints ?? []) as unknown[]),
          each: m.each === true,
          validate: (value, args) => instance.validate(value, args),
          message: (args) => (typeof custom === 'function' ? custom(args) : typeof custom === 'string' ? custom : instance.defaultMessage?.(args) ?? `${name} is malformed`),
          constraints: (m.constraints ?? []) as unknown[],
        });
      }
      // isDefined, whitelist and promise metadata: the full check judges them.
    }
    if (!usable) continue;
    const type = nested ? t.findTypeMetadata(target, name) : undefined;
    properties.push({
      name, optional, rules, nested,
      nestedType: type && typeof type.typeFunction === 'function' && !type.options?.discriminator ? type.typeFunction : undefined,
    });
  }
  return { target, properties };
}

const isPlainObject = (x: object): boolean => {
  const proto = Object.getPrototypeOf(x) as unknown;
  return (proto === Object.prototype || proto === null) && !Array.isArray(x);
};
const isPlainArray = (x: unknown): x is unknown[] => Array.isArray(x) && Object.getPrototypeOf(x) === Array.prototype;

/** A value class-transformer hands class-validator as it is, or copies into one judged alike. */
function isPlain(x: unknown): boolean {
  if (x === null || x === undefined) return true;
  const type = typeof x;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  return type === 'object' && (isPlainArray(x) || isPlainObject(x as object));
}

/** Whether an array has gaps (which the full check closes first). */
function sparse(a: unknown[]): boolean {
  let n = 0;
  for (const _ in a) n++;
  return n !== a.length;
}

/** A string class-validator would put among its messages: `$property` and `$constraintN` filled in. */
function fill(message: string, args: ValidationArguments): string {
  let out = message.replace(/\$property/g, args.property);
  args.constraints.forEach((c, i) => { out = out.replace(new RegExp(`\\$constraint${i + 1}`, 'g'), String(c)); });
  return out;
}

/** The first certain refusal of an object against a plan, or null. */
function refusalOf(object: Record<string, unknown>, plan: Plan, path: string, depth: number): string | null {
  for (const p of plan.properties) {
    // class-transformer copies own enumerable keys only; the class's fields start undefined.
    const value = Object.prototype.propertyIsEnumerable.call(object, p.name) ? object[p.name] : undefined;
    if (p.optional && (value === null || value === undefined)) continue;
    if (!isPlain(value)) continue;
    const isArray = Array.isArray(value);
    if (isArray && !(value as unknown[]).every(isPlain)) continue;
    for (const r of p.rules) {
      const args: ValidationArguments = { targetName: plan.target.name, property: p.name, object, value, constraints: r.constraints };
      const judge = (v: unknown): unknown => r.quick?.(v) ?? r.validate(v, args);
      const ok = r.each && isArray ? (value as unknown[]).every(judge) : judge(value);
      if (ok) continue;
      if (isArray && (r.each || LENGTH_RULES.has(r.name)) && sparse(value as unknown[])) continue;
      return (path ? `${path}.` : '') + fill(r.message(args), args);
    }
    if (!p.nested || value === null || value === undefined) continue;
    const notNested = `${path ? `${path}.` : ''}nested property ${p.name} must be either object or array`;
    if (typeof value !== 'object') return notNested;
    // Each item of an array there is validated as the class: a string, number, boolean or null item is refused.
    if (isArray) {
      if ((value as unknown[]).some((v) => v === null || (typeof v !== 'object' && v !== undefined))) return notNested;
      continue;
    }
    if (depth >= 8 || !p.nestedType) continue;
    let nestedTarget: unknown;
    try { nestedTarget = p.nestedType(); } catch { continue; }
    const nestedPlan = typeof nestedTarget === 'function' ? planOf(nestedTarget) : null;
    if (!nestedPlan) continue;
    const inner = refusalOf(value as Record<string, unknown>, nestedPlan, path ? `${path}.${p.name}` : p.name, depth + 1);
    if (inner !== null) return inner;
  }
  return null;
}

/**
 * Why the full check would certainly refuse `value` as a `metatype`
 * envelope, or null when it cannot tell (the full check then decides).
 * An array or a string, number or boolean is never an envelope.
 */
export function envelopeRefusal(metatype: Function, value: unknown): string | null {
  const plan = planOf(metatype);
  if (!plan) return null;
  // No body is validated as {}.
  if (value === null || value === undefined) return refusalOf({}, plan, '', 0);
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean' || isPlainArray(value)) return 'the message must be an object';
  if (type !== 'object' || !isPlainObject(value as object)) return null;
  return refusalOf(value as Record<string, unknown>, plan, '', 0);
}
