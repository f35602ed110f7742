import type { UnitOptions } from 'syncom';

/** The socket.io namespace the gateway listens on unless told otherwise. */
export const DEFAULT_NAMESPACE = '/syncom';

/** The provider token of the gateway's resolved options (SyncomGatewayOptions). */
export const SYNCOM_GATEWAY_OPTIONS = Symbol('SYNCOM_GATEWAY_OPTIONS');

/** The provider token of where the module hosts its gateway: the namespace, or false when it hosts none. */
export const SYNCOM_HOSTING = Symbol('SYNCOM_HOSTING');

/** The host unit's options the gateway passes on as they are (UnitOptions documents each). */
export const UNIT_PASSED = [
  'pageSize', 'pageBytes', 'maxInFlightFrames', 'maxInFlightBytes', 'maxConnectionInFlightBytes', 'maxFeedsPerConnection',
  'maxPagings', 'maxPagingsPerConnection', 'exactScopes', 'proveNodes', 'meta', 'tracked', 'authorizeTimeout',
] as const satisfies readonly (keyof UnitOptions)[];

/** The gateway's socket.io transports unless the module declares others: WebSocket only. */
export const DEFAULT_TRANSPORTS: readonly ('websocket' | 'polling')[] = ['websocket'];
