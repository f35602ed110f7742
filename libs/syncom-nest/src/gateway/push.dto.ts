import { bool, envelope, type EnvelopeOf, int, OpaqueArray, optional, str } from './envelope-schema';
import { scopeNames } from './feed.dto';

/** The `push` envelope: `{ ops }`, packed ops the engine checks one by one (PROTO-5). */
export const PushDto = envelope('push', { ops: OpaqueArray() });
/** The `push` envelope. */
export type PushDto = EnvelopeOf<typeof PushDto>;

/** The `snapshot` envelope: which page of which paging, for which scopes, streamed or inline (PROTO-7). */
export const SnapshotDto = envelope('snapshot', {
  token: optional(str(64)),
  offset: optional(int(0)),
  scopes: optional(scopeNames()),
  stream: optional(bool()),
});
/** The `snapshot` envelope. */
export type SnapshotDto = EnvelopeOf<typeof SnapshotDto>;
