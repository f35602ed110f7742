import { SyncomError } from 'syncom';

/**
 * A variable of the hub's environment that does not parse: the hub exits before it opens anything.
 * `value` is left out for variables holding secrets.
 */
export function badVariable(name: string, value: string | undefined, why: string): SyncomError {
  const shown = value === undefined ? name : `${name}=${JSON.stringify(value)}`;
  return new SyncomError('HUB_CONFIG', `${shown}: ${why}`, { variable: name });
}

/** A comma-separated list, trimmed, without empty items. */
export function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((t) => t.trim()).filter(Boolean);
}

/**
 * An integer variable in [min, max], or `fallback` when unset or empty.
 * @throws SyncomError HUB_CONFIG naming the variable otherwise.
 */
export function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, range: { min: number; max?: number }): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(n) || n < range.min || n > max) {
    throw badVariable(name, raw, `expected a whole number from ${range.min} to ${max}`);
  }
  return n;
}

/**
 * A choice among `choices`, or `fallback` when unset or empty.
 * @throws SyncomError HUB_CONFIG naming the variable and the choices.
 */
export function choiceVar<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw badVariable(name, raw, `expected one of ${choices.join(', ')}`);
  return raw as T;
}

/**
 * A flag: '1' or 'true' on, '0', 'false' or unset off.
 * @throws SyncomError HUB_CONFIG for anything else (a typo must not leave a setting silently off).
 */
export function flagVar(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw badVariable(name, raw, 'expected 1 or 0');
}

/** The tokens of SYNCOM_TOKENS and the scopes each is bound to (absent: every scope). */
export interface TokenList {
  tokens: string[];
  tokenScopes: Record<string, string[]>;
}

/**
 * SYNCOM_TOKENS: `t1,t2:Doc+Note` — a token alone may claim every scope; a
 * token followed by `:` and scopes joined by `+` may claim only those (and
 * global records, which reach everyone).
 * @throws SyncomError HUB_CONFIG for an empty scope list or a token listed twice.
 */
export function tokenList(env: NodeJS.ProcessEnv, name = 'SYNCOM_TOKENS'): TokenList {
  const out: TokenList = { tokens: [], tokenScopes: {} };
  for (const item of list(env[name])) {
    const colon = item.indexOf(':');
    const token = (colon < 0 ? item : item.slice(0, colon)).trim();
    const scopes = colon < 0 ? ['*'] : item.slice(colon + 1).split('+').map((s) => s.trim()).filter(Boolean);
    // Tokens are secrets: a refusal names the item's position, never its text.
    const at = `item ${out.tokens.length + 1}`;
    if (token === '') throw badVariable(name, undefined, `${at} has no token before ':'`);
    if (scopes.length === 0) throw badVariable(name, undefined, `${at} has ':' but no scopes (write t:Doc+Note, or the token alone for every scope)`);
    if (out.tokens.includes(token)) throw badVariable(name, undefined, `${at} repeats a token listed before`);
    out.tokens.push(token);
    if (!scopes.includes('*')) out.tokenScopes[token] = scopes;
  }
  return out;
}
