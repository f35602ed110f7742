import type { Namespace } from 'socket.io';
import type { SampledLog } from './sampled-log';

/** The browser origins the gateway takes a handshake from beyond its own: every one ('*'), or a list. */
export type AllowedOrigins = readonly string[] | '*';

/** The headers of a handshake request this check reads. */
interface OriginHeaders {
  origin?: string;
  host?: string;
}

/** `entry` as an origin (`http://localhost:5173`, lower case, no default port), or undefined when it is no http(s) origin. */
function originOf(entry: string): string | undefined {
  try {
    const url = new URL(entry);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** `host` (a Host header) as the origin it names under `protocol` (default port dropped), or undefined when it is no host[:port]. */
function hostOrigin(host: string | undefined, protocol: string): string | undefined {
  if (!host) return undefined;
  try {
    const url = new URL(`${protocol}//${host}`);
    // A Host header is host[:port] alone: one holding more (a path, user info) names no origin.
    return !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a handshake may go on. A request without Origin is no browser
 * page's (Node clients, syncom dialers, curl send none) and passes. A
 * browser's passes when its Origin is the gateway's own — the same host and
 * port as the request's Host header, under the Origin's scheme (a TLS proxy
 * in front forwards Host, not the scheme) — or is in `allowed`, or `allowed`
 * is '*'. Entries that are no http(s) origin match nothing.
 */
export function originAllowed(headers: OriginHeaders, allowed: AllowedOrigins = []): boolean {
  const origin = headers.origin;
  if (origin === undefined || allowed === '*') return true;
  const parsed = originOf(origin);
  if (parsed === undefined) return false;
  if (hostOrigin(headers.host, new URL(parsed).protocol) === parsed) return true;
  return allowed.some((entry) => originOf(entry) === parsed);
}

/**
 * Checks `allowed` once, when the gateway is made (a throw in afterInit would not stop the app).
 * @throws TypeError naming an entry that is no http(s) origin (a mistake of the app, which would match nothing).
 */
export function checkedOrigins(allowed: AllowedOrigins = []): AllowedOrigins {
  if (allowed === '*') return allowed;
  // One origin as a string had been read character by character ("h" is no origin).
  if (!Array.isArray(allowed)) throw new TypeError(`gateway.allowedOrigins: a list of origins (['https://app.example']), or '*' alone, not ${JSON.stringify(allowed)}`);
  for (const entry of allowed) {
    if (originOf(entry) === undefined) throw new TypeError(`gateway.allowedOrigins: ${JSON.stringify(entry)} is no http(s) origin (scheme://host[:port]), or '*' alone`);
  }
  return allowed;
}

/** What engine.io's server exposes here: its options, and the middlewares every HTTP request goes through first. */
interface Engine {
  opts: { allowRequest?: (req: { headers: OriginHeaders }, fn: (message: string | null | undefined, success: boolean) => void) => void };
  use(fn: (req: { headers: OriginHeaders }, res: { setHeader(name: string, value: string): void }, next: () => void) => void): void;
}

/**
 * Long-polling is held to CORS, unlike a WebSocket: a browser hands a page of
 * another origin the answer to its XHR only when the answer names that
 * origin. Without this, a page of an allowed origin was refused every poll
 * by its browser (where the gateway's transports allow long-polling), and
 * socket.io-client, which tries long-polling first by default, never
 * connected. Credentials are allowed, as for the WebSocket a page of the
 * origin may open with the visitor's cookies. Set before engine.io answers,
 * its refusals included (a WebSocket-only gateway's 400 "Transport unknown",
 * which the link reads to say what to change); a refused origin's handshake
 * is 403 without them.
 */
function answerAllowedOrigins(engine: Engine, allowed: AllowedOrigins): void {
  engine.use((req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && originAllowed(req.headers, allowed)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
    }
    next();
  });
}

/**
 * Refuses a handshake from a browser page of another origin (engine.io
 * answers 403 with the message). A WebSocket is not held to CORS, so
 * without it any page the user opens may dial a gateway the browser can
 * reach — one on localhost or the intranet — and read and write its store
 * as a peer. An application's own allowRequest still runs for the rest.
 * `allowed` is checkedOrigins' (undefined: none beyond the server's own).
 */
export function guardOrigins(namespace: Namespace, allowed: AllowedOrigins | undefined, log: SampledLog): void {
  const list = allowed ?? [];
  const engine = namespace.server.engine as unknown as Engine;
  answerAllowedOrigins(engine, list);
  if (list === '*') return;
  const theirs = engine.opts.allowRequest;
  engine.opts.allowRequest = (req, fn) => {
    if (!originAllowed(req.headers, list)) {
      // The Origin is the client's claim: quoted, so that it cannot forge a log line.
      log.warn('origin', `refused a connection from origin ${JSON.stringify(String(req.headers.origin))}: not this server's origin nor in allowedOrigins`);
      return fn('this origin may not connect (allowedOrigins)', false);
    }
    if (theirs) return theirs(req, fn);
    fn(null, true);
  };
}
