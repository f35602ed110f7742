/**
 * The JSON text of a merge op's entry as the log packed it, kept until the
 * record file that writes the same entry takes it: a record joined from a
 * snapshot page (or a reconciliation) is written twice, in its merge op and
 * in a record file, and stringifying it once for both saves a third of the
 * dialer's encoding. Only an entry that is the record as the op leaves it is
 * kept (see packedJson), and taking a text removes it; entries are immutable,
 * so a text kept is the text of the object it is kept for.
 */
const kept = new WeakMap<object, string>();

/** Keep `text`, the JSON of `entry`, for the record file that writes it next. */
export function keepJson(entry: object, text: string): void {
  kept.set(entry, text);
}

/** The JSON of `entry` as kept by the log's packing (then forgotten), else JSON.stringify's. */
export function takeJson(entry: object): string {
  const text = kept.get(entry);
  if (text === undefined) return JSON.stringify(entry);
  kept.delete(entry);
  return text;
}

/** The JSON array of `entries`, each text taken as takeJson does: exactly JSON.stringify(entries). */
export function entriesJson(entries: readonly object[]): string {
  return `[${entries.map(takeJson).join(',')}]`;
}
