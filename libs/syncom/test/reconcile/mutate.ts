import type { Message } from '../../src/reconcile';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** A valid tag, and values at and past every edge the decoder checks. */
const TAG = 'AAAAAAAAAAAAAAAAAAAAAA';
const EDGES: readonly unknown[] = [
  -1, 0, 1, 2, 3, 4, 5, 6, 7, -0, 0.5, 1023, 1024, 1025, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e308, NaN, Infinity, -Infinity,
  '', 'a', TAG, `${TAG}A`, TAG.slice(1), `${TAG.slice(1)}=`, `${TAG.slice(1)}+`, 'x'.repeat(512), 'x'.repeat(513), '\ud800', '\u0000',
  '__proto__', 'constructor', null, undefined, true, false, [], {}, [null], [null, 0], [[0, ''], 0], [0, 'a'], [-1, 'a'], [1, 2],
];

/** A hostile value a JSON decoder would never make: the decoder must still refuse it calmly. */
function hostile(r: Rand): unknown {
  switch (Math.floor(r() * 7)) {
    case 0: return new Proxy([], { get: () => { throw new Error('trap'); } });
    case 1: return Object.defineProperty({ v: 1 }, 'ranges', { enumerable: true, get: () => { throw new Error('getter'); } });
    case 2: return new Array(Math.floor(r() * 8));
    case 3: return new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 21 : Reflect.get(t, k)) });
    case 4: return JSON.parse('{"__proto__":{"polluted":1},"v":1,"ranges":[[null,0]]}');
    case 5: return 10n;
    default: return Symbol('s');
  }
}

/** A random value: mostly edges, sometimes short arrays of them, now and then something hostile. */
export function randomValue(r: Rand, depth = 0): unknown {
  const x = r();
  if (x < 0.02) return hostile(r);
  // A fresh copy: mutations change arrays in place, and a shared one would grow into a cycle.
  if (x < 0.75 || depth > 2) {
    const v = pick(r, EDGES);
    return typeof v === 'object' && v !== null ? JSON.parse(JSON.stringify(v)) : v;
  }
  const n = Math.floor(r() * 5);
  return Array.from({ length: n }, () => randomValue(r, depth + 1));
}

/** A message of plausible shape with random parts: increasing bounds most of the time, any mode. */
export function randomMessage(r: Rand): unknown {
  const n = 1 + Math.floor(r() * 6);
  const ranges: unknown[] = [];
  for (let k = 0; k < n; k++) {
    const upper = k === n - 1 && r() < 0.8 ? null : r() < 0.8 ? [k * 10 + Math.floor(r() * 10), pick(r, ['', 'a', 'b', 'zz'])] : randomValue(r);
    const mode = r() < 0.9 ? Math.floor(r() * 6) : randomValue(r);
    const payload = Array.from({ length: Math.floor(r() * 3) }, () =>
      r() < 0.5 ? Array.from({ length: Math.floor(r() * 4) }, () => pick(r, [TAG, 'id', ['id', TAG], 0, 1, 3])) : randomValue(r));
    ranges.push([upper, mode, ...payload]);
  }
  return r() < 0.9 ? { v: r() < 0.95 ? 1 : randomValue(r), ranges } : randomValue(r);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
function randomTag(r: Rand): string {
  let tag = '';
  for (let k = 0; k < 22; k++) tag += ALPHABET[Math.floor(r() * 64)];
  return tag;
}

/** Children of a node a mutation can descend into; none for a leaf or a hostile value. */
function childKeys(x: unknown): string[] {
  if (typeof x !== 'object' || x === null) return [];
  try { return Object.keys(x); } catch { return []; }
}

/** A nearby value: what a peer with a bug, or an attacker probing edges, would send. */
function nudge(v: unknown, r: Rand): unknown {
  if (r() < 0.15) return randomValue(r);
  if (typeof v === 'number') return pick(r, [v + 1, v - 1, v * 2, -v, v + 0.5, Math.floor(r() * 6), 2 ** 53]);
  if (typeof v === 'string') return pick(r, [randomTag(r), v.slice(1), `${v}a`, '', v.repeat(40), `${v.slice(0, -1)}\ud800`]);
  if (!Array.isArray(v)) return randomValue(r);
  const out = [...v];
  const k = Math.floor(r() * (out.length + 1));
  switch (Math.floor(r() * 5)) {
    case 0: out.splice(k, 1); break;
    case 1: out.splice(k, 0, out[k] ?? null); break;
    case 2: out.reverse(); break;
    case 3: out.length = Math.floor(out.length / 2); break;
    default: out.push(randomValue(r));
  }
  return out;
}

/** One change at a node reached by a random walk from the root: deeper nodes, leaves above all, are likelier. */
function mutateOnce(holder: { root: unknown }, r: Rand): void {
  let parent: Record<string, unknown> = holder;
  let key = 'root';
  try {
    for (;;) {
      const keys = childKeys(parent[key]);
      if (keys.length === 0 || (key !== 'root' && r() < 0.25)) break;
      parent = parent[key] as Record<string, unknown>;
      // The version is one leaf beside all the ranges: mostly go to the ranges.
      key = keys.includes('ranges') && r() < 0.95 ? 'ranges' : pick(r, keys);
    }
    parent[key] = nudge(parent[key], r);
  } catch {
    // An earlier change put a hostile value on the way (a throwing getter or proxy): leave it be.
  }
}

const randomId = (r: Rand) => pick(r, ['rec-1', 'rec-2s', 'zz', 'a', '\u00e9']) + Math.floor(r() * 50);

/** A payload of the same mode that still decodes: only the reconcilers can tell it is wrong. */
function reshapeRange(range: unknown[], r: Rand): void {
  const list = range[2] as unknown[];
  switch (range[1]) {
    case 0: range.push(randomTag(r)); range[1] = 1; break;
    case 1: range[2] = randomTag(r); break;
    case 2: list.splice(Math.floor(r() * (list.length + 1)), r() < 0.5 ? 1 : 0, randomTag(r)); break;
    case 3: list.splice(Math.floor(r() * (list.length + 1)), r() < 0.5 ? 1 : 0, [randomId(r), randomTag(r)]); break;
    case 4: range[2] = [randomId(r)]; range[3] = [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => Math.floor(r() * 40)))].sort((x, y) => x - y); break;
    default:
  }
}

/** A copy of a corpus message with one to three ranges reshaped but still well formed. */
export function reshape(message: Message, r: Rand): unknown {
  const copy = JSON.parse(JSON.stringify(message)) as { ranges: unknown[][] };
  const times = 1 + Math.floor(r() * 3);
  for (let k = 0; k < times; k++) reshapeRange(pick(r, copy.ranges), r);
  return copy;
}

/** A mutated deep copy of a corpus message: one to three changes. */
export function mutate(message: unknown, r: Rand): unknown {
  // A JSON round trip copies plain data faster than structuredClone.
  const holder = { root: JSON.parse(JSON.stringify(message)) as unknown };
  const times = 1 + Math.floor(r() * 3);
  for (let k = 0; k < times; k++) mutateOnce(holder, r);
  return holder.root;
}

/**
 * The corpus: real messages, those of more than 8 ranges cut into pieces of
 * 4 that still end the key space (the last piece, and the others with their
 * last bound set to null), which keeps copies and walks cheap.
 */
export function corpusOf(messages: Message[]): Message[] {
  return messages.flatMap((m) => {
    if (m.ranges.length <= 8) return [m];
    const pieces: Message[] = [];
    for (let k = 0; k < m.ranges.length; k += 4) {
      const ranges = structuredClone(m.ranges.slice(k, k + 4));
      ranges[ranges.length - 1][0] = null;
      pieces.push({ v: m.v, ranges });
    }
    return pieces;
  });
}
