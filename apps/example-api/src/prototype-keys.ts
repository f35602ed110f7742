import type { IncomingMessage, ServerResponse } from 'node:http';

/** Whether `key` names a member of Object.prototype (`__proto__`, `constructor`, `toString`...), or is `prototype`. */
export function isPrototypeName(key: string): boolean {
  return key === '__proto__' || key === 'prototype' || key in Object.prototype;
}

/**
 * Refuses 400 a JSON body whose top level holds a key named as a member of
 * Object.prototype, as ValidationPipe refuses any other unknown field: its
 * copy into the DTO's class dropped those, so `{"title":"x","constructor":1}`
 * was taken 201 where `{"title":"x","other":1}` is refused. Runs after the
 * JSON parser (JSON.parse makes such a key an own one).
 */
export function refusePrototypeKeys(req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: () => void): void {
  const body = req.body;
  const odd = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).find(isPrototypeName) : undefined;
  if (odd === undefined) return next();
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ message: [`property ${odd.slice(0, 40)} should not exist`], error: 'Bad Request', statusCode: 400 }));
}
