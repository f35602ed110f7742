/**
 * The targets table of the README's Performance section, from a results file
 * (bench/results/latest.json by default): each target with the figure of that
 * run and whether it is met. `npm run bench:targets [-- FILE]`.
 *
 * A target whose rows the file lacks (a --filter run) says "not run"; nothing
 * is judged from a figure of another run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from './lib/types';

type Rows = Map<string, Result>;
type Verdict = { figure: string; met: boolean | null };
type Target = { what: string; judge: (rows: Rows) => Verdict };

const NOT_RUN: Verdict = { figure: 'not run', met: null };
const fmt = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : Number(x.toPrecision(3)).toString());

/**
 * A bracketed row's ratio against its baseline's row measured at the start
 * of the run instead of beside it (lib/brackets.ts); undefined for a row
 * that was not bracketed.
 */
function startRatio(r: Result, rows: Rows): number | undefined {
  const start = r.baseline === null ? undefined : rows.get(r.baseline)?.value;
  return r.baselineValue === undefined || r.value === null || !start ? undefined : r.value / start;
}

/**
 * A row's ratio against its baseline, judged by `ok`; where the baseline's
 * row from the start of the run would judge it otherwise, that ratio beside it.
 */
function ratio(names: string[], ok: (r: number) => boolean, label = (n: string) => n.split('/')[0]): Target['judge'] {
  return (rows) => {
    const found = names.map((n) => rows.get(n)).filter((r): r is Result => r !== undefined && r.ratio !== null);
    if (found.length === 0) return NOT_RUN;
    const figure = found.map((r) => {
      const start = startRatio(r, rows);
      const other = start !== undefined && ok(start) !== ok(r.ratio!) ? ` (${fmt(start)} against the start's baseline)` : '';
      return [label(r.name), fmt(r.ratio!)].filter(Boolean).join(' ') + other;
    }).join(', ');
    return { figure, met: found.length === names.length && found.every((r) => ok(r.ratio!)) };
  };
}

/** A row's value, judged by `ok`. */
function value(name: string, unit: string, ok: (v: number) => boolean): Target['judge'] {
  return (rows) => {
    const r = rows.get(name);
    if (r?.value === null || r?.value === undefined) return NOT_RUN;
    return { figure: `${fmt(r.value)} ${unit}`, met: ok(r.value) };
  };
}

const NS = ['1k', '10k', '100k'];
const peers = (system: string, what: string, batched: boolean) =>
  NS.map((n) => `peers/${system}/n=${n}/${batched ? 'batched/' : ''}${what}`);
const byN = (n: string) => n.split('/')[2].slice(2);

export const TARGETS: Target[] = [
  {
    what: 'local writes, 100 in flight, durable off: at least 0.5 of signing alone',
    judge: ratio(['insert', 'update', 'inc', 'add'].map((w) => `${w}/100-in-flight/durable=false`), (r) => r >= 0.5),
  },
  {
    what: 'one awaited write, durable off: at least 0.25 of signing alone',
    judge: ratio(['insert', 'update'].map((w) => `local/awaited/${w}/durable=false`), (r) => r >= 0.25, (n) => n.split('/')[2]),
  },
  {
    what: 'one awaited write, durable off, with `log.lines`: at least 0.25 of signing alone',
    judge: ratio(['insert', 'update'].map((w) => `local/awaited-lines/${w}/durable=false`), (r) => r >= 0.25, (n) => n.split('/')[2]),
  },
  {
    what: 'one awaited insert, durable on: p50 reported',
    judge: (rows) => {
      const p50 = rows.get('local/awaited/insert/durable=true/p50')?.value;
      const p99 = rows.get('local/awaited/insert/durable=true/p99')?.value;
      return p50 == null || p99 == null ? NOT_RUN : { figure: `p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms`, met: true };
    },
  },
  { what: '`get()` on 100k records: at least 1/3 of a Map lookup plus structuredClone', judge: ratio(['get/100k/random'], (r) => r >= 1 / 3) },
  { what: 'replication on the memory link: at least 0.75 of its crypto bound', judge: ratio(['replication/memory/of-bound'], (r) => r >= 0.75, () => '') },
  { what: 'hub ingest, one peer: at least 0.75 of verifying alone', judge: ratio(['hub/socketio/ingest'], (r) => r >= 0.75, () => '') },
  { what: 'hub ingest, four peers: at least 0.85 of verifying alone', judge: ratio(['hub/socketio/ingest/4-peers'], (r) => r >= 0.85, () => '') },
  { what: 'bootstrap of 100k, readable: at least 0.3 of JSON.parse of its pages', judge: ratio(['bootstrap/memory/100k'], (r) => r >= 0.3, () => '') },
  {
    what: 'bootstrap of 100k, every merge op signed: reported',
    judge: (rows) => {
      const r = rows.get('bootstrap/memory/100k/signed');
      return r?.ratio == null ? NOT_RUN : { figure: `${fmt(r.ratio)} of JSON.parse`, met: true };
    },
  },
  { what: 'reconciliation of an unchanged 100k store: at most 50 ms of the dialer\'s CPU', judge: value('reconcile/unchanged/100k/dialer-cpu', 'ms', (v) => v <= 50) },
  {
    what: 'identical 1M-record sets: one round trip, under 1 KB each way',
    judge: (rows) => {
      const [t, s, a] = ['round-trips', 'bytes-sent', 'bytes-answered'].map((w) => rows.get(`reconcile/set/1M/diff=0/${w}`)?.value);
      return t == null || s == null || a == null ? NOT_RUN : { figure: `${t} trip, ${s} B / ${a} B`, met: t === 1 && s < 1000 && a < 1000 };
    },
  },
  {
    what: '1M records, one difference: at most 3 round trips, a few KB',
    judge: (rows) => {
      const [t, s, a] = ['round-trips', 'bytes-sent', 'bytes-answered'].map((w) => rows.get(`reconcile/set/1M/diff=1/${w}`)?.value);
      return t == null || s == null || a == null ? NOT_RUN : { figure: `${t} trips, ${fmt(s)} B / ${fmt(a)} B`, met: t <= 3 && s + a < 16_000 };
    },
  },
  { what: 'incremental bootstrap, 100 changes in 100k: under 5% of the snapshot\'s bytes', judge: ratio(['reconcile/bootstrap/100k/incremental-bytes'], (r) => r < 0.05, () => '') },
  { what: 'unsigned syncom ahead of Yjs, one change per record, every N', judge: ratio(peers('syncom-false', 'throughput-vs-yjs', false), (r) => r > 1, byN) },
  { what: 'unsigned syncom ahead of Yjs, batched, every N', judge: ratio(peers('syncom-false', 'throughput-vs-yjs', true), (r) => r > 1, byN) },
  {
    what: 'signed syncom ahead of Automerge, both workloads (where Automerge finished)',
    judge: (rows) => {
      const names = [...peers('syncom-verify', 'throughput-vs-automerge', false), ...peers('syncom-verify', 'throughput-vs-automerge', true)];
      const found = names.map((n) => rows.get(n)).filter((r): r is Result => r !== undefined);
      const judged = found.filter((r) => r.ratio !== null);
      if (judged.length === 0) return NOT_RUN;
      const figure = judged.map((r) => `${r.name.includes('batched') ? 'batched ' : ''}${byN(r.name)} ${fmt(r.ratio!)}`).join(', ');
      return { figure: `${figure} (Automerge timed out in ${found.length - judged.length})`, met: judged.every((r) => r.ratio! > 1) };
    },
  },
  { what: 'fan-out: at least half a bare socket.io broadcast, 100 and 1,000 subscribers', judge: ratio(['hub/fanout/100/deliveries', 'hub/fanout/1000/deliveries'], (r) => r >= 0.5, (n) => n.split('/')[2]) },
  {
    what: 'fan-out: CPU per delivery at most 1/4 of the first hub\'s (3.08 µs at 100, 3.16 at 1,000)',
    judge: (rows) => {
      const a = rows.get('hub/fanout/100/cpu-per-delivery')?.value;
      const b = rows.get('hub/fanout/1000/cpu-per-delivery')?.value;
      return a == null || b == null ? NOT_RUN : { figure: `${fmt(a)} µs, ${fmt(b)} µs`, met: a <= 3.08 / 4 && b <= 3.16 / 4 };
    },
  },
  { what: 'browser bundle: at most 60 KB gzipped', judge: value('browser/bundle-gzip', 'KB', (v) => v <= 60) },
];

/** The Markdown table of every target against a results file. */
export function targetsTable(results: Result[]): string {
  const rows: Rows = new Map(results.map((r) => [r.name, r]));
  const lines = ['| target | figure | met |', '| --- | --- | --- |'];
  for (const t of TARGETS) {
    const v = t.judge(rows);
    lines.push(`| ${t.what} | ${v.figure} | ${v.met === null ? '–' : v.met ? 'met' : '**not met**'} |`);
  }
  return lines.join('\n');
}

if (require.main === module) {
  const file = process.argv[2] ?? join(__dirname, 'results', 'latest.json');
  console.log(targetsTable(JSON.parse(readFileSync(file, 'utf8')) as Result[]));
}
