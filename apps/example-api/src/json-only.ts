import type { IncomingMessage, ServerResponse } from 'node:http';

/** The methods that write. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The one line of a refused write, in the shape of Nest's error answers. */
const REFUSAL = JSON.stringify({ statusCode: 415, error: 'Unsupported Media Type', message: 'write bodies must be application/json' });

/** Whether the request carries a body (a length above 0, or a chunked one). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Whether `type` (a Content-Type header) is application/json, parameters (a charset) allowed. */
function isJson(type: string): boolean {
  return type.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** The one line of a browser's write from a page of another site. */
const CROSS_SITE = JSON.stringify({ statusCode: 403, error: 'Forbidden', message: 'writes from a page of another site are refused' });

/**
 * Whether a browser sent this request for a page of another site. Its
 * Sec-Fetch-Site decides where it is sent (a page cannot forge it;
 * `same-origin` and `none` pass); else its Origin, when it has one, is held
 * to the Host header, both read as URLs (`null`, a sandboxed or file page,
 * is another site). A client that is no browser sends neither. Behind a
 * proxy that rewrites Host, only a browser too old to send Sec-Fetch-Site
 * is refused.
 */
function fromAnotherSite(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'cross-site' || site === 'same-site';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    const from = new URL(origin);
    return from.host !== new URL(`${from.protocol}//${req.headers.host ?? ''}`).host;
  } catch {
    return true;
  }
}

/**
 * An express middleware that answers 415 to a write whose body is anything
 * but application/json, and 403 to a browser's write from a page of another
 * site. A page of another site can post a form (urlencoded, multipart,
 * text/plain) or a body with no type at all without asking CORS first, but
 * not JSON: that needs a preflight this app never answers. A write with
 * neither a body nor a type (POST /notes/:id/views) passes, unless a
 * browser says another site's page sent it (a `no-cors` fetch had counted
 * views of any note whose id the page knew).
 */
export function jsonOnlyWrites(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (!WRITES.has(req.method ?? '')) return next();
  const type = req.headers['content-type'];
  if (type === undefined ? hasBody(req) : !isJson(type)) return refuse(res, 415, REFUSAL);
  if (fromAnotherSite(req)) return refuse(res, 403, CROSS_SITE);
  next();
}

function refuse(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(body);
}
