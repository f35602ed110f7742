import { nested } from './fuzz';

/**
 * The crasher corpus: every input that ever threw or hung a decoder, and
 * hand-picked nasties, one test each. A corpus file is JSON; values JSON
 * cannot hold are written as placeholders: { $deep: n, object?, leaf? },
 * { $long: n, of?, then? }, { $sparse: n }, { $json: text } (own __proto__
 * keys), { $deepText: n } (an NDJSON line of arrays n deep), { $proxy: 'throw' | 'length' },
 * { $getter: field, base }.
 */
export interface Case {
  why: string;
  found: string;
  expect: 'refused' | 'taken';
  input: unknown;
  offset?: number;
  method?: string;
}

/** A corpus value with its placeholders made. */
export function expand(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(expand);
  if (typeof x !== 'object' || x === null) return x;
  const o = x as Record<string, unknown>;
  if (typeof o.$deep === 'number') return nested(o.$deep, o.object === true, o.leaf ?? 1);
  if (typeof o.$long === 'number') return String(o.of ?? 'x').repeat(o.$long) + String(o.then ?? '');
  if (typeof o.$sparse === 'number') return new Array(o.$sparse);
  if (typeof o.$json === 'string') return JSON.parse(o.$json) as unknown;
  // JSON.stringify cannot write what JSON.parse can read 20,000 deep: the text is built.
  if (typeof o.$deepText === 'number') return `${'['.repeat(o.$deepText)}${']'.repeat(o.$deepText)}\n`;
  if (o.$proxy === 'throw') return new Proxy({}, { get: () => { throw new Error('trap'); }, ownKeys: () => { throw new Error('trap'); } });
  if (o.$proxy === 'length') return new Proxy([], { get: (t, k) => (k === 'length' ? o.length : Reflect.get(t, k)) });
  if (typeof o.$getter === 'string') return Object.defineProperty({ ...(o.base as object) }, o.$getter, { enumerable: true, get: () => { throw new Error('getter'); } });
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, expand(v)]));
}

