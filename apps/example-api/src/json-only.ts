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

/**
 * An express middleware that answers 415 to a write whose body is anything
 * but application/json. A page of another site can post a form
 * (urlencoded, multipart, text/plain) or a body with no type at all without
 * asking CORS first, but not JSON: that needs a preflight this app never
 * answers. A write with neither a body nor a type (POST /notes/:id/views)
 * passes.
 */
export function jsonOnlyWrites(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const type = req.headers['content-type'];
  const refused = WRITES.has(req.method ?? '') && (type === undefined ? hasBody(req) : !isJson(type));
  if (!refused) return next();
  res.writeHead(415, { 'Content-Type': 'application/json; charset=utf-8' }).end(REFUSAL);
}
