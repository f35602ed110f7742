// The gateway's side of the protocol speaks the same names as the engine's socket.io link.
export { answerOk, fromWireError, SYNCOM_EVENTS, unwrapAnswer } from 'syncom/socket.io';
export type { ChunkAnswer, FeedErrorMessage, PageAcksOffer, PageMessage, SyncomAnswer, WireError } from 'syncom/socket.io';
