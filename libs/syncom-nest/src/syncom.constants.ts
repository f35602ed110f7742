/** The socket.io namespace the gateway listens on unless told otherwise. */
export const DEFAULT_NAMESPACE = '/syncom';

/** The provider token of the gateway's resolved options (SyncomGatewayOptions). */
export const SYNCOM_GATEWAY_OPTIONS = Symbol('SYNCOM_GATEWAY_OPTIONS');
