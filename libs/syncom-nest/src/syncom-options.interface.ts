import type { CanActivate, NestInterceptor } from '@nestjs/common';
import type { Authorized, Hello, Limits, OpenOptions, UnitOptions } from 'syncom';
import type { Socket } from 'socket.io';
import type { ManagerOptions, SocketOptions } from 'socket.io-client';
import type { AllowedOrigins } from './gateway/allowed-origins';
import type { UNIT_PASSED } from './syncom.constants';

/**
 * The connection context the gateway hands to `authorize` and to the host
 * unit: one object per socket, so a session lives exactly as long as its
 * socket (a reconnect is a new context and must greet again, HOST-21).
 */
export interface SyncomSocketContext {
  /** The socket.io socket (its `handshake` holds headers, query and auth). */
  readonly socket: Socket;
  /** Set when the handshake passed `authorize` under access 'session' (HOST-2). */
  session?: { token?: string; identity?: string };
  /** The peer's node id, once its hello succeeded on this socket (the limits guard keys its bucket on it). */
  node?: string;
  /** The scopes its hello named ('*' when none): its rooms are `syncom:<scope>`. */
  scopes?: string[];
}

/**
 * The app's own guards and interceptors on the gateway's messages, after its own guards (docs/nest.md,
 * Your guards on the gateway): classes (made in SyncomModule's scope: they may inject Reflector, Storage
 * and what global modules export) or instances. Read once, when the module is defined, like the namespace:
 * Nest 11 applies no global guard (APP_GUARD) or interceptor to a gateway.
 */
export interface SyncomGatewayEnhancers {
  /** What @UseGuards takes: guard classes or instances. */
  guards?: (CanActivate | Function)[];
  /** What @UseInterceptors takes: interceptor classes or instances. */
  interceptors?: (NestInterceptor | Function)[];
}

/**
 * How the gateway hosts peers: the host unit's options, as Nest guards apply them. Page sizes,
 * the send window and byte budgets, feed and paging caps, exactScopes, meta and tracked are the
 * unit's own (UnitOptions), passed on unchanged.
 */
export interface SyncomGatewayOptions extends Pick<UnitOptions, (typeof UNIT_PASSED)[number]>, SyncomGatewayEnhancers {
  /** The socket.io namespace (default '/syncom'). Read once, when the module is defined. */
  namespace?: string;
  /**
   * The transports the gateway's socket.io server takes (default WebSocket only: every syncom client
   * speaks it, and HTTP long-polling lets a client without a token have the host decode thousands of
   * packets a request in one synchronous loop; docs/security.md). Read once, when the module is defined.
   */
  transports?: GatewayTransport[];
  /** 'public' (default here): any socket may greet; 'session': the handshake must pass authorize first. */
  access?: UnitOptions['access'];
  /**
   * The authorize guard: the socket's context and the hello (its token and scopes). `true` admits; a non-empty
   * string admits and names the peer's identity, which the limits' buckets are keyed by (else the token it judged);
   * anything else (false, undefined, null) refuses: 401.
   */
  authorize?: (context: SyncomSocketContext, hello: Hello) => Authorized | Promise<Authorized>;
  /** The limits guard: opsPerPush / bytesPerPush -> 413, opsPerSecond per peer -> 429. */
  limits?: Limits;
  /** How long a changes page waits for the subscriber's ack, from the ack of the page before it, before the feed ends (default 30 s). */
  ackTimeout?: number;
  /**
   * How long `authorize` may take at a hello, and at a handshake (access 'session'), before it is refused 503
   * AUTHORIZE_FAILED, which the dialer greets or dials again after, backed off (default 10 s). Unbounded, an
   * authorize waiting on a store that never answered left the dialer waiting with nothing reported.
   */
  authorizeTimeout?: number;
  /**
   * The most a message may weigh, in UTF-8 bytes, before a hello succeeds on its socket (default 64 KiB; an honest
   * hello is a few hundred bytes, more with many scopes, as it carries only the dialer's own streams); a larger one closes the connection unparsed. Keys and items: a sixteenth of it.
   */
  preAuthBytes?: number;
  /**
   * How long, in ms, a connection may hold output its client takes none of (its TCP socket writes nothing while
   * something waits unsent) before it is closed, checked at each packet it sends, pongs included (default 60 s).
   */
  readStallTimeout?: number;
  /**
   * The most connections the gateway's socket.io server holds at once, every namespace's together; the next
   * handshake is refused (engine.io's 403) until one closes (default 10,000; 0: no cap). Behind a load balancer
   * each process holds its own.
   */
  maxConnections?: number;
  /**
   * The most bytes every connection together may hold of messages not yet whole (a client that sends all of a
   * message but its end, and then nothing): checked once a second, past it the connections that have held some
   * longest are closed, largest first (default sixteen of the largest message, at least 64 MiB; 0: no bound).
   */
  maxInboundBytes?: number;
  /**
   * The browser origins (`https://app.example`, scheme, host and port) whose pages may open a socket besides the
   * gateway's own (the request's Host), or '*' for any. A handshake without an Origin header (Node clients, syncom's
   * dialers: no browser page) always passes; another is refused with engine.io's 403. Default: none beyond the
   * gateway's own, whatever the access: a WebSocket is not held to CORS, so any page a user opens could otherwise
   * dial a gateway the browser reaches (localhost, the intranet), and an `authorize` may read the handshake's
   * cookies. Set it for a page served elsewhere (a dev server dialing directly, an app on a CDN). Applies to the
   * whole socket.io server, as maxConnections. An entry that is no http(s) origin: TypeError at start.
   */
  allowedOrigins?: AllowedOrigins;
}

/** A transport class of socket.io-client's engine (either build's). */
type TransportClass = new (options: never) => object;

/**
 * socket.io-client's options of `io()`, as the default `sync.connect` passes them on. The two that
 * take transport classes are widened: socket.io-client's own types name the Transport class of its
 * CommonJS build, which the options of an ES module app (typed by its ESM build) never fit.
 */
export type SyncomIoOptions = Partial<Omit<ManagerOptions & SocketOptions, 'transports' | 'transportImplementations'>> & {
  /** The transports to try, in order: 'websocket', 'polling', 'webtransport', or transport classes. */
  transports?: (string | TransportClass)[];
  /** Transport classes to use instead of the built-in ones. */
  transportImplementations?: TransportClass[];
};

/** A transport of socket.io's server. */
export type GatewayTransport = 'websocket' | 'polling';

/** SyncomModule.forRoot()'s options: open()'s, plus `scope`, the gateway, the link's `io` and `logSync`. */
export interface SyncomModuleOptions extends OpenOptions {
  /** A record's scope from its data; shorthand for `sync.scope`. */
  scope?: (id: string, data: Record<string, unknown>) => string;
  /** Host peers on a socket.io gateway. Absent or false: this app only dials. */
  gateway?: SyncomGatewayOptions | boolean;
  /** socket.io-client options of the default `sync.connect` (the socket.io link). */
  io?: SyncomIoOptions;
  /**
   * Log what the dialers meet through a Nest Logger, context 'Syncom' (default true): a sync
   * error (a refused token, ...), a hub the default `sync.connect` cannot reach, a hub connected
   * or lost. A line per change of state, not per retry; no token is written. false: nothing is
   * logged, SyncomEvents (`error$`, `peer$`) still tells.
   */
  logSync?: boolean;
}
