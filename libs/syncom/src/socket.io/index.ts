export { createSocketIoLink } from './socket-io-link';
export type { SocketIoLink, SocketIoLinkOptions } from './socket-io-link';
export type { ClientManager, ClientSocket } from './client-socket';
export { answerOk, fromWireError, SYNCOM_EVENTS, unwrapAnswer } from './socket-io-protocol';
export type { ChunkAnswer, FeedErrorMessage, PageAcksOffer, PageMessage, SyncomAnswer, WireError } from './socket-io-protocol';
