import { SyncomError } from 'syncom';

/** The link is down (never came up, went down, or was closed): nothing was sent. */
export function linkDown(): SyncomError {
  return new SyncomError('LINK_DOWN', 'The socket.io link is down; calls fail until it reconnects, subscriptions resume then');
}

/** No answer came back in time; the host may or may not have run the call. */
export function linkTimeout(ms: number): SyncomError {
  return new SyncomError('LINK_TIMEOUT', `No answer within ${ms} ms; the host may or may not have run the call — retry`);
}
