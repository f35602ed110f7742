import type { Hello } from 'syncom';
import type { SyncomSocketContext } from 'syncom-nest';

/** Whether `claimed` (a hello's scopes) stays within `granted` (a token's; undefined or '*': anything). */
export function withinScopes(claimed: readonly string[], granted: readonly string[] | undefined): boolean {
  if (granted === undefined || granted.includes('*')) return true;
  // Claiming '*' is claiming every scope, which a bound token may not.
  return claimed.length > 0 && claimed.every((s) => s !== '*' && granted.includes(s));
}

/**
 * Whether authorize is asked at the handshake: no session on the socket yet,
 * and the hello the session middleware makes (no node, no epoch). A real
 * hello always has a session under access 'session', and a node id.
 */
function atHandshake(context: SyncomSocketContext, hello: Hello): boolean {
  return context.session === undefined && hello.node === '' && hello.epoch === '';
}

/** Tokens bound to scopes, as HubConfig.tokenScopes gives them: a Map, or an object whose own keys are the tokens. */
export type TokenScopes = ReadonlyMap<string, readonly string[]> | Readonly<Record<string, readonly string[]>>;

/**
 * `tokenScopes` as a Map. An object's own keys only, read with Object.entries: `__proto__` as a key of an
 * object made by JSON.parse or Object.create(null) is a token like any other, never the object's prototype.
 */
export function scopeMap(tokenScopes: TokenScopes | undefined): ReadonlyMap<string, readonly string[]> {
  if (tokenScopes instanceof Map) return tokenScopes;
  return new Map(Object.entries(tokenScopes ?? {}));
}

/**
 * The hub's authorize, for a gateway under access 'session'. At the handshake
 * (no session on the socket yet) only the token is known: it must be one of
 * `tokens`. At hello it must be that same token, and the scopes hello names —
 * what the peer will be held to — must be within the ones the token is bound
 * to (Scopes: "authorize(context, hello) sees hello.scopes, which is where a
 * host decides what a credential may claim"). A refusal is the gateway's
 * 401 UNAUTHORIZED.
 */
export function hubAuthorize(tokens: readonly string[], tokenScopes?: TokenScopes) {
  const allowed = new Set(tokens);
  const bound = scopeMap(tokenScopes);
  return (context: SyncomSocketContext, hello: Hello): boolean => {
    const token = hello.token;
    if (typeof token !== 'string' || !allowed.has(token)) return false;
    if (atHandshake(context, hello)) return true;
    // A socket speaks for the token it connected with: the socket cap counted that one.
    if (context.session !== undefined && context.session.token !== token) return false;
    return withinScopes(hello.scopes, bound.get(token));
  };
}

/** The hub's scope rule is the engine's scopeByField: a client that writes here places its records with the same function. */
export { scopeByField } from 'syncom';
