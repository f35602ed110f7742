export { applyOp } from './apply';
export type { ApplyResult } from './apply';
export { isEntry, newestTs } from './check-entry';
export { emptyEntry, isHidden, kindClashMessage, KIND_NAMES, own } from './entry';
export type { CounterField, Entry, Field, FieldKind, RegisterField, SetElement, SetField } from './entry';
export { contentStamp, joinField, pruneField } from './fields';
export { joinEntries } from './merge';
export { readEntry, readField, seenTags } from './read';
export { compareStamps, isOlder, isTag, maxStamp, stampOfTag, tagOf } from './stamp';
