import type { Vector } from '../op/types';

/** A node id cut to its first 8 characters: enough to tell nodes apart on screen. */
export function shortId(id: string): string {
  return id.length > 10 ? `${id.slice(0, 8)}..` : id;
}

/** A vector key (`origin`, `origin@scope`, `origin<from`) with its node ids shortened. */
export function shortKey(key: string): string {
  const m = /^([^@<]*)(@[^<]*)?(<.*)?$/.exec(key);
  if (!m) return key;
  return `${shortId(m[1])}${m[2] ?? ''}${m[3] ? `<${shortId(m[3].slice(1))}` : ''}`;
}

/** A vector on one line, keys shortened: `kF3s9aQe..: 12, kF3s9aQe..@team: 3`; `{}` when empty. */
export function formatVector(v: Vector): string {
  const parts = Object.entries(v).map(([k, n]) => `${shortKey(k)}: ${n}`);
  return parts.length ? parts.join(', ') : '{}';
}

/** A stamp as an ISO date, or the raw number when it is none (a test clock near 0 still reads). */
export function iso(ts: number | null | undefined): string {
  if (ts === null || ts === undefined) return 'never';
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) || ts < 1e11 ? String(ts) : d.toISOString();
}

/** A value's JSON, cut to `max` characters so one op stays one readable line. */
export function clip(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `n thing` or `n things` (or the plural given). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
