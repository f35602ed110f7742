import { platform } from '../platform';
import { declaredOf, WIDE } from './narrow';
import { defineField } from './plain';
import type { JudgeBudget, RecordClass, RecordView } from './types';
import { validateRecord } from './validate';

/** How many verdicts of type changes a schema keeps, and how many characters of error messages in all. */
const RETYPE_VERDICTS = 4096;
const RETYPE_TEXT = 4 * 1024 * 1024;

/** A kept verdict: no errors (passed) or the errors it gave. */
type Kept = readonly string[] | null;

/**
 * The last RETYPE_VERDICTS verdicts (and RETYPE_TEXT characters of their
 * errors), each under the digest of what the validator read; a verdict read
 * again moves to the newest end, the oldest go first.
 */
class Verdicts {
  private readonly kept = new Map<string, Kept>();
  private text = 0;

  get(key: string): Kept | undefined {
    const v = this.kept.get(key);
    if (v !== undefined) {
      this.kept.delete(key);
      this.kept.set(key, v);
    }
    return v;
  }

  set(key: string, v: Kept): void {
    const weight = textOf(v);
    if (weight > RETYPE_TEXT) return;
    const was = this.kept.get(key);
    if (was !== undefined) this.text -= textOf(was);
    this.kept.delete(key);
    this.kept.set(key, v);
    this.text += weight;
    for (const [k, old] of this.kept) {
      if (this.kept.size <= RETYPE_VERDICTS && this.text <= RETYPE_TEXT) break;
      this.kept.delete(k);
      this.text -= textOf(old);
    }
  }
}

const textOf = (v: Kept): number => (v ? v.reduce((n, e) => n + e.length, 0) : 0);

/**
 * The fields of `view` the validator reads as a record of `cls`, in the order
 * it reads them: every field, or past WIDE fields those the class declares,
 * as toInstance (validate.ts) picks them from the record.
 */
function fieldsRead(cls: RecordClass, view: RecordView): string[] {
  if (view.size > WIDE) return [...declaredOf(cls)].filter((name) => view.has(name));
  return [...view.names()];
}

/** How many values `data` holds: each array, object and other value counts one, at every depth. */
function valuesIn(data: unknown): number {
  let n = 0;
  const stack = [data];
  while (stack.length > 0) {
    const value = stack.pop();
    n++;
    if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (typeof value === 'object' && value !== null) for (const key of Object.keys(value)) stack.push((value as Record<string, unknown>)[key]);
  }
  return n;
}

/**
 * How a schema judges an update that changes a record's type (checkUpdate in
 * storage/local-ops.ts): as a whole record of the new type, the record's other
 * fields included, which costs the record's size. The verdict is kept under
 * the digest of what the validator reads (each field's name and state), so a
 * token holder flipping a large record's type between two classes op after
 * op costs the host the record's fields for each flip, not its values. The
 * verdict is taken to be a function of the data the validator is handed, as
 * it must be for nodes to agree on an op (a constraint reading a clock or a
 * global has them disagree already). A record whose
 * state changed since (an element added) is judged anew, and that costs
 * the record's size: a host charges it to the peer's rate (`budget`,
 * docs/security.md).
 */
export function retypeJudge(types: ReadonlyMap<string, RecordClass>, typeField: string): (view: RecordView, budget?: JudgeBudget) => string[] | undefined {
  const verdicts = new Verdicts();
  return (view, budget) => {
    const name = view.read(typeField);
    const cls = typeof name === 'string' ? types.get(name) : undefined;
    if (cls === undefined) return undefined;
    const names = fieldsRead(cls, view);
    const key = platform().sha256Hex(JSON.stringify([name, ...names.map((n) => [n, view.state(n)])]));
    const kept = verdicts.get(key);
    if (kept !== undefined) return kept === null ? undefined : [...kept];
    budget?.open();
    const data: Record<string, unknown> = {};
    for (const n of names) defineField(data, n, view.read(n));
    const r = validateRecord(cls, data, 'write');
    budget?.charge(valuesIn(data));
    verdicts.set(key, r.ok ? null : Object.freeze([...r.errors]));
    return r.ok ? undefined : r.errors;
  };
}
