import { bool, envelope, type EnvelopeOf, nested, optional, str, strings } from './envelope-schema';

const argsShape = { scopes: optional(strings(256)) };

/** The arguments of a changes subscription: the scopes asked for (none: all granted). */
export const ChangesArgsDto = envelope('changes args', argsShape);
/** The arguments of a changes subscription. */
export type ChangesArgsDto = EnvelopeOf<typeof ChangesArgsDto>;

/** The `changes` envelope: the client's sub id for this opening, its args, and where to resume (PROTO-6). */
export const ChangesDto = envelope('changes', {
  sub: str(64, 1),
  args: optional(nested(argsShape)),
  lastEventId: optional(str(64)),
});
/** The `changes` envelope. */
export type ChangesDto = EnvelopeOf<typeof ChangesDto>;

/** The `unsubscribe` envelope: the sub id to end. */
export const UnsubscribeDto = envelope('unsubscribe', { sub: str(64, 1) });
/** The `unsubscribe` envelope. */
export type UnsubscribeDto = EnvelopeOf<typeof UnsubscribeDto>;

/** The `chunk` envelope: pull the next chunk of a snapshot stream, or (cancel) drop it. */
export const ChunkDto = envelope('chunk', { stream: str(64, 1), cancel: optional(bool()) });
/** The `chunk` envelope. */
export type ChunkDto = EnvelopeOf<typeof ChunkDto>;
