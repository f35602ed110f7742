// The socket.io client link lives in the engine ('syncom/socket.io', no Nest needed); the module re-exports it.
export { answerOk, createSocketIoLink, fromWireError, SYNCOM_EVENTS, unwrapAnswer } from 'syncom/socket.io';
export type {
  ChunkAnswer, ClientManager, ClientSocket, FeedErrorMessage, PageAcksOffer, PageMessage, SocketIoLink, SocketIoLinkOptions, SyncomAnswer, WireError,
} from 'syncom/socket.io';
