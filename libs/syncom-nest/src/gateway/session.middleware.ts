import type { Socket } from 'socket.io';
import { authorizeFailed, authorizeVerdict, DEFAULT_AUTHORIZE_MS, type Hello } from 'syncom';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import type { SampledLog } from './sampled-log';
import { peerOf } from './socket-peer';

type Next = (error?: Error) => void;

/** The hello authorize sees at the handshake: only the token is known yet (no node, no scopes). */
function handshakeHello(token: string | undefined): Hello {
  const hello: Hello = { node: '', vector: {}, epoch: '', schema: null, scopes: [], versions: [], caps: [] };
  if (token !== undefined) hello.token = token;
  return hello;
}

/** The refusal socket.io hands the client as connect_error; the link turns `data` into a SyncomError. */
function refusal(message: string, code = 'UNAUTHORIZED', status = 401): Error {
  return Object.assign(new Error(message), { data: { code, status, message } });
}

/**
 * access 'session' (HOST-2): a socket.io middleware that runs `authorize`
 * at the handshake with the client's `auth.token` and, when it passes, puts
 * the session on the socket's context (with the identity its answer named,
 * which the limits are keyed by); the unit then answers hello. An answer
 * other than true or a non-empty string, or a throw, refuses the connection
 * 401; a throw that says it could not judge (authorizeFailed) is 503
 * AUTHORIZE_FAILED, and so is one that has not answered within
 * `authorizeTimeout` (its later answer is dropped). The link dials again
 * after either, backed off. Nothing here can crash the server.
 * Without authorize every handshake gets a session.
 */
export function createSessionMiddleware(options: SyncomGatewayOptions, log: SampledLog): (socket: Socket, next: Next) => void {
  return (socket, next) => {
    const auth = socket.handshake.auth as Record<string, unknown> | undefined;
    const token = typeof auth?.token === 'string' ? auth.token : undefined;
    const context = peerOf(socket).context;
    const check = async () => (options.authorize ? authorizeVerdict(await options.authorize(context, handshakeHello(token))) : { ok: true });
    let answered = false;
    const once = (error?: Error) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      next(error);
    };
    const timer = setTimeout(() => {
      log.warn('handshake-slow', `refused the handshake of ${socket.handshake.address}: authorize did not answer in time`);
      once(refusal('authorize did not answer in time: try again later', 'AUTHORIZE_FAILED', 503));
    }, options.authorizeTimeout ?? DEFAULT_AUTHORIZE_MS);
    timer.unref?.();
    check().then(
      ({ ok, identity }) => {
        if (answered) return;
        if (ok) context.session = { ...(token !== undefined && { token }), ...(identity !== undefined && { identity }) };
        else log.warn('handshake', `refused the handshake of ${socket.handshake.address}: authorize said no`);
        once(ok ? undefined : refusal('authorize refused the handshake: check the token'));
      },
      (error: unknown) => {
        // Its name only: an authorize may word its error with the token it was handed.
        log.warn('handshake-threw', `refused the handshake of ${socket.handshake.address}: authorize threw ${error instanceof Error ? error.name : typeof error}`);
        // One that says it could not judge (its store down): 503. Any other throw is a no (jwt.verify's on a bad token).
        once(authorizeFailed(error) ? refusal('authorize could not judge the handshake: try again later', 'AUTHORIZE_FAILED', 503) : refusal('authorize refused the handshake: check the token'));
      },
    );
  };
}
