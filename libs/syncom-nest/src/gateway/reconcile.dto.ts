import { bool, envelope, type EnvelopeOf, opaqueObject, optional, strings } from './envelope-schema';
import { scopeName } from './feed.dto';

/**
 * The `reconcile` envelope: a scope label, one reconciliation
 * message and, on a run's first call, `start`. The label is a scope name
 * (1-128 characters, no '<' nor control characters) or '*'. The engine decodes the message
 * and refuses a malformed one (400 RECONCILE_MALFORMED); this checks the envelope.
 */
export const ReconcileDto = envelope('reconcile', { scope: scopeName(), msg: opaqueObject(), start: optional(bool()) }, ['msg']);
/** The `reconcile` envelope. */
export type ReconcileDto = EnvelopeOf<typeof ReconcileDto>;

/** The `records` envelope: a scope label and the ids to fetch (the unit caps them at its pageSize). */
export const RecordsDto = envelope('records', { scope: scopeName(), ids: strings(10_000, 512) });
/** The `records` envelope. */
export type RecordsDto = EnvelopeOf<typeof RecordsDto>;
