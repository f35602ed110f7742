import { isScopeName, MAX_SCOPE_NAME, SyncomError } from 'syncom';
import { allowedHostName } from 'syncom-nest';

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
  throw badVariable(name, raw, 'expected 1 or true, 0 or false');
}

/** The tokens of SYNCOM_TOKENS and the scopes each is bound to (absent: every scope). */
export interface TokenList {
  tokens: string[];
  /** A Map, not an object: a token is the operator's text, and `__proto__` or `constructor` must be a key like any other. */
  tokenScopes: Map<string, string[]>;
}

/**
 * One SYNCOM_TOKENS item split at its last ':': what follows is the scope
 * list, so a token may hold ':' as long as its scopes are written after it
 * (`to:ken:*`); a scope name cannot hold ':'.
 */
function tokenItem(item: string): { token: string; scopes: string[] } {
  const colon = item.lastIndexOf(':');
  if (colon < 0) return { token: item, scopes: ['*'] };
  return { token: item.slice(0, colon).trim(), scopes: item.slice(colon + 1).split('+').map((s) => s.trim()).filter(Boolean) };
}

/**
 * SYNCOM_TOKENS: `t1,t2:Doc+Note` — a token alone may claim every scope; a
 * token followed by `:` and scopes joined by `+` may claim only those (and
 * global records, which reach everyone). An item is split at its last ':'
 * (tokenItem). Unset: no tokens (an open hub).
 * @throws SyncomError HUB_CONFIG for a variable set but holding no token (the operator meant a
 * closed hub), an empty scope list, a scope that is no scope name (isScopeName) or a token listed twice.
 */
export function tokenList(env: NodeJS.ProcessEnv, name = 'SYNCOM_TOKENS'): TokenList {
  const out: TokenList = { tokens: [], tokenScopes: new Map() };
  const items = list(env[name]);
  // An empty secret file (`SYNCOM_TOKENS=$(cat /run/secrets/tokens)`) must not start an open hub.
  if (env[name] !== undefined && items.length === 0) throw badVariable(name, undefined, 'is set but holds no token (unset it to run an open hub)');
  for (const item of items) {
    const { token, scopes } = tokenItem(item);
    // Tokens are secrets: a refusal names the item's position, never its text.
    const at = `item ${out.tokens.length + 1}`;
    if (token === '') throw badVariable(name, undefined, `${at} has no token before ':'`);
    if (scopes.length === 0) throw badVariable(name, undefined, `${at} has ':' but no scopes (write t:Doc+Note, or the token alone for every scope)`);
    // A scope no hello can name ('<', a control character, past 128 characters) left a token that could never greet
    // (every hello 400): refused here, by position only, since text after a ':' may be part of a token.
    const unnamed = scopes.findIndex((s) => !isScopeName(s));
    if (unnamed >= 0) {
      throw badVariable(name, undefined, `${at} binds a scope (its scope ${unnamed + 1}) that no hello can name: a scope name is 1-${MAX_SCOPE_NAME} characters without '<' or control characters`);
    }
    if (out.tokens.includes(token)) throw badVariable(name, undefined, `${at} repeats a token listed before`);
    out.tokens.push(token);
    if (!scopes.includes('*')) out.tokenScopes.set(token, scopes);
  }
  return out;
}

/** Origins a browser page may dial the gateway from (SYNCOM_ALLOWED_ORIGINS): every origin, or a list. */
export type OriginList = string[] | '*';

/** One SYNCOM_ALLOWED_ORIGINS entry as an origin (`http://localhost:5173`), or undefined when it is none. */
function originOf(entry: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : undefined;
}

/**
 * SYNCOM_ALLOWED_ORIGINS: `*`, or origins (`scheme://host[:port]`) separated by commas; set but empty: none
 * beyond the hub's own. Unset: undefined (the hub's default).
 * @throws SyncomError HUB_CONFIG naming the first entry that is no http(s) origin, or a '*' among origins.
 */
export function originList(env: NodeJS.ProcessEnv, name = 'SYNCOM_ALLOWED_ORIGINS'): OriginList | undefined {
  return starOrEach(env, name, (entry) => (entry === '*' ? undefined : originOf(entry)),
    'is no origin: expected * alone, or http(s)://host[:port] separated by commas');
}

/**
 * A variable that is `*` alone, or entries separated by commas each `each` reads (undefined: refused, with
 * `expected` after the entry in the message). Unset: undefined.
 * @throws SyncomError HUB_CONFIG naming the first entry `each` refuses.
 */
function starOrEach(env: NodeJS.ProcessEnv, name: string, each: (entry: string) => string | undefined, expected: string): string[] | '*' | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const entries = list(raw);
  if (entries.length === 1 && entries[0] === '*') return '*';
  return entries.map((entry) => {
    const read = each(entry);
    if (read === undefined) throw badVariable(name, raw, `${JSON.stringify(entry)} ${expected}`);
    return read;
  });
}

/** Host names an open hub answers for beyond IP addresses and localhost (SYNCOM_ALLOWED_HOSTS): every one, or a list. */
export type HostList = string[] | '*';

/**
 * SYNCOM_ALLOWED_HOSTS: `*`, or host names separated by commas (`hub.example`, `.example.com` for a domain and
 * its subdomains), lower-cased, a trailing dot dropped; set but empty: none beyond the defaults. Unset: undefined.
 * @throws SyncomError HUB_CONFIG naming the first entry that is no host name (a port, a scheme, `*.x`), or a '*' among names.
 */
export function hostList(env: NodeJS.ProcessEnv, name = 'SYNCOM_ALLOWED_HOSTS'): HostList | undefined {
  return starOrEach(env, name, allowedHostName,
    'is no host name: expected * alone, or names (hub.example, .example.com for a domain and its subdomains) separated by commas, without scheme or port');
}
