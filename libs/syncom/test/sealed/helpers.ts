import { internals } from '../../src/testing/internals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostUnit } from '../../src/link';
import { FLAG_SEALED } from '../../src/op';
import type { LogEntry } from '../../src/log';
import type { Storage } from '../../src';

/** A plaintext marker: no file may hold it once it is a sealed record's value. */
export const MARK = 'MARK-5e41ed';

/** Every file under `dir`, as [relative path, content]. */
export async function filesUnder(dir: string, base = ''): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const d of await readdir(join(dir, base), { withFileTypes: true })) {
    const rel = base ? `${base}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...(await filesUnder(dir, rel)));
    else out.push([rel, await readFile(join(dir, rel), 'utf8')]);
  }
  return out;
}

/** The files under `dir` that hold `text` (a grep -rl). */
export async function grepFiles(dir: string, text: string): Promise<string[]> {
  return (await filesUnder(dir)).filter(([, content]) => content.includes(text)).map(([p]) => p);
}

/** The log entries a storage holds for an id. */
export function entriesOf(s: Storage, id: string): LogEntry[] {
  return internals(s).log.read(0).filter((e) => e.op.id === id);
}

/** Whether every entry of the id is flagged sealed. */
export function allSealed(s: Storage, id: string): boolean {
  const es = entriesOf(s, id);
  return es.length > 0 && es.every((e) => (e.flags & FLAG_SEALED) !== 0);
}

/** What crossed a spied unit, both ways, as JSON text. */
export interface Wire {
  /** Every call's method and arguments (what left the dialer). */
  calls: { method: string; args: string }[];
  /** Every answer and changes page (what left the host). */
  answers: string[];
}

/** A unit that records everything that crosses it (see Wire). */
export function spyUnit(unit: HostUnit, wire: Wire): HostUnit {
  const keep = (x: unknown) => (wire.answers.push(JSON.stringify(x) ?? ''), x);
  return {
    access: unit.access,
    meta: unit.meta,
    call: async (method, args, context) => {
      wire.calls.push({ method, args: JSON.stringify(args) });
      return keep(await unit.call(method, args, context));
    },
    subscribe: (method, args, context, options) =>
      unit.subscribe(method, args, context, { ...options, onData: (v, id) => options.onData(keep(v), id) }),
    stream: (id, context) => unit.stream(id, context),
    disconnect: (context) => unit.disconnect(context),
  };
}
