import { errorCodeTable, type ErrorCodeInfo, type SyncomErrorCode } from './error-codes';

/** The `what` of every code in the browser: the text itself stays out of the bundle. */
const SEE_DOCS = 'see "Error codes" in docs/api.md';

/**
 * The browser entry's ERROR_CODES: every code with its status and group, as
 * the Node entry's; its `what` points to docs/api.md.
 */
export const ERROR_CODES = errorCodeTable(() => SEE_DOCS);

/** What ERROR_CODES says of a code: its status where one applies (its meaning is in docs/api.md). */
export function errorCodeInfo(code: SyncomErrorCode): ErrorCodeInfo {
  return ERROR_CODES[code];
}
