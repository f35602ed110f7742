export { createSocketIoLink, SYNCOM_EVENTS } from './link';
export type { ClientSocket, SocketIoLink, SocketIoLinkOptions, SyncomAnswer, WireError } from './link';
export {
  createSyncomGateway, SyncomGateway, DEFAULT_ACK_TIMEOUT, SyncomAckGuard, SyncomAuthorizeGuard, SyncomLimitsGuard,
  SyncomExceptionFilter, SyncomValidationPipe, OpaqueArray, toWireError, wsRefusal, HelloDto, SchemaInfoDto, PushDto,
  SnapshotDto, ChangesArgsDto, ChangesDto, ChunkDto, UnsubscribeDto, maxMessageBytes, applyMessageLimit, messageLimitOf,
  DEFAULT_MAX_MESSAGE_BYTES, ENVELOPE_HEADROOM, MAX_FEEDS_PER_SOCKET, MAX_STREAMS_PER_SOCKET, scopeRoom, peerOf, SocketPeer,
  SyncomIoAdapter, SampledLog, DEFAULT_MAX_CONNECTIONS, defaultInboundBytes, originAllowed, SYNCOM_PROCEDURE, syncomProcedureOf,
} from './gateway';
export type { AllowedOrigins, SyncomProcedure, SyncomProcedureName } from './gateway';
export { DEFAULT_NAMESPACE, SYNCOM_GATEWAY_OPTIONS } from './syncom.constants';
export type { SyncomGatewayEnhancers, SyncomGatewayOptions, SyncomSocketContext } from './syncom-options.interface';
export { SyncomModule } from './syncom.module';
export { SYNCOM_MODULE_OPTIONS } from './syncom.module-definition';
export type { SyncomModuleExtras } from './syncom.module-definition';
export type { SyncomIoOptions, SyncomModuleOptions } from './syncom-options.interface';
export { getStorageToken, InjectStorage } from './storage.decorators';
export { isHubUrl, socketIoConnect, toOpenOptions } from './storage.provider';
export type { SocketWatch } from './storage.provider';
export { SyncomEvents } from './events/syncom-events';
export { SYNCOM_HTTP_STATUS, SyncomHttpFilter } from './http/syncom-http.filter';
export { failedStartLine, farWords, loggedMessage, loggedUrl, scrubbed, servedPeer, type ServedError } from './events/sync-logger';
export { allowedHostName, hostAllowed, hostNameOf, shownHost } from './hosts';
