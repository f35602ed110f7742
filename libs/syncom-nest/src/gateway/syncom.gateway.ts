import { Inject, Logger, type OnModuleDestroy, type OnModuleInit, type Type, UseFilters, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  ConnectedSocket, MessageBody, type OnGatewayConnection, type OnGatewayInit, SubscribeMessage, WebSocketGateway,
} from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { DEFAULT_CONNECTION_IN_FLIGHT_BYTES, type Hello, type HostUnit, Storage, SyncomError, type UnitOptions, unitBounds } from 'syncom';
import { answerOk, type ChunkAnswer, SYNCOM_EVENTS, type SyncomAnswer } from '../link/socket-io-protocol';
import { DEFAULT_NAMESPACE, DEFAULT_TRANSPORTS, SYNCOM_GATEWAY_OPTIONS, UNIT_PASSED } from '../syncom.constants';
import type { GatewayTransport, SyncomGatewayEnhancers, SyncomGatewayOptions, SyncomSocketContext } from '../syncom-options.interface';
import { SyncomAckGuard } from './ack.guard';
import { checkedOrigins, guardOrigins } from './allowed-origins';
import { SyncomAuthorizeGuard } from './authorize.guard';
import { capConnections, DEFAULT_MAX_CONNECTIONS, defaultInboundBytes, InboundBudget, OneSocketPerConnection } from './engine-bounds';
import { ChangesDto, ChunkDto, UnsubscribeDto } from './feed.dto';
import { openFeed } from './gateway-feeds';
import { HelloDto } from './hello.dto';
import { SyncomLimitsGuard } from './limits.guard';
import { checkGatewayEnhancers, checkGatewayTimers } from '../module-options';
import { applyMessageLimit, maxMessageBytes, reconcileFrameFor } from './message-size';
import { withPageAcks } from './page-acks-offer';
import { DEFAULT_READ_STALL_MS, PRE_AUTH_UNREAD_BYTES, PreAuthGate, preAuthBytesOf } from './pre-auth';
import { SampledLog } from './sampled-log';
import { PushDto, SnapshotDto } from './push.dto';
import { ReconcileDto, RecordsDto } from './reconcile.dto';
import { createSessionMiddleware } from './session.middleware';
import { Procedure } from './procedure';
import { peerOf } from './socket-peer';
import { SyncomExceptionFilter } from './syncom-exception.filter';
import { SyncomValidationPipe } from './syncom-validation.pipe';
import { SyncomUnreadInterceptor } from './unread.interceptor';
import { answerUnknownEvent } from './unknown-event';
import { thrownText } from '../thrown-text';

/** How long a changes page waits for the subscriber's ack by default. */
export const DEFAULT_ACK_TIMEOUT = 30_000;

/** The most of a peer's node id a log line quotes: a syncom node id (a public key) is 43 characters, a hello's up to 128. */
const MAX_LOGGED_NODE = 64;

/**
 * A node id as a log line gives it: the peer's own claim, JSON-quoted (a newline in it cannot forge a line)
 * and cut to MAX_LOGGED_NODE characters.
 */
function loggedNode(node: string): string {
  return node.length > MAX_LOGGED_NODE ? `${JSON.stringify(node.slice(0, MAX_LOGGED_NODE))}... (${node.length} characters)` : JSON.stringify(node);
}

/** One validation pipe per envelope (stateless, shared by every gateway class). */
const helloPipe = new SyncomValidationPipe(HelloDto);
const pushPipe = new SyncomValidationPipe(PushDto);
const snapshotPipe = new SyncomValidationPipe(SnapshotDto);
const reconcilePipe = new SyncomValidationPipe(ReconcileDto);
const recordsPipe = new SyncomValidationPipe(RecordsDto);
const changesPipe = new SyncomValidationPipe(ChangesDto);
const unsubscribePipe = new SyncomValidationPipe(UnsubscribeDto);
const chunkPipe = new SyncomValidationPipe(ChunkDto);

/** The syncom gateways connected to each socket.io namespace (onModuleInit refuses two on one). */
const hostedOn = new WeakMap<Namespace, Set<object>>();

/** The message size each syncom gateway of a socket.io server asked for, by server. */
const messageBytesOn = new WeakMap<object, Map<object, number>>();

/**
 * The message size of the server `namespace` belongs to, with `gateway`'s:
 * the largest any of its syncom gateways asked for. The engine's bound is the
 * server's, every namespace's: two modules hosting on one server with sizes of
 * their own had every gateway held to the last one's (a 200 KB push over
 * long-polling to the one without limits dropped its connection). Each
 * gateway's limits guard still refuses a push over its own bytesPerPush.
 */
function serverMessageBytes(namespace: Namespace, gateway: object, bytes: number): number {
  const asked = messageBytesOn.get(namespace.server) ?? new Map<object, number>();
  messageBytesOn.set(namespace.server, asked.set(gateway, bytes));
  return Math.max(...asked.values());
}

/**
 * The gateway's host unit. The limits stay with the guards, but for
 * opsPerSecond, which the unit keeps too: it charges a type change its
 * schema judges anew to the peer's bucket (docs/security.md, A token
 * holder), which only the unit sees. Its bucket takes what the guard's
 * does, and those charges besides, so it refuses only what they ran into
 * debt. `authorize` is the unit's, which runs it on a hello after the proof
 * of its node id (proveNodes), so that it judges a node that holds its key.
 */
function hostUnitOf(storage: Storage, options: SyncomGatewayOptions): HostUnit {
  const { access = 'public', limits, authorize: judge } = options;
  const authorize = judge && ((context: object, hello: Hello) => judge(context as SyncomSocketContext, hello));
  const reconcileFrame = reconcileFrameFor(limits);
  // The limits guard checks pushes; the unit only tells dialers in hello how large a push may be.
  const pushBytes = limits?.bytesPerPush === undefined ? undefined : Math.floor(limits.bytesPerPush);
  const passed: Partial<UnitOptions> = Object.fromEntries(UNIT_PASSED.map((k) => [k, options[k]]));
  const rate = limits?.opsPerSecond;
  return storage.sync.unit({ ...passed, access, reconcileFrame, pushBytes, ...(authorize && { authorize }), ...(rate && { limits: { opsPerSecond: rate } }) });
}

/**
 * The rule of every hosted gateway, the module's and one hosted without it:
 * never open by accident. A public gateway lets any socket read and write
 * the store, so without `authorize` it takes `access: 'public'` said.
 */
export function isGuarded(options: SyncomGatewayOptions): boolean {
  return !!options.authorize || options.access === 'public';
}

/** @throws SyncomError GATEWAY_UNGUARDED for a gateway hosted without the module that is not guarded (isGuarded). */
function checkedGuard(options: SyncomGatewayOptions): void {
  if (isGuarded(options)) return;
  throw new SyncomError(
    'GATEWAY_UNGUARDED',
    'SyncomGateway: no authorize: set authorize (hello) => boolean to check peers\' tokens, or access: \'public\' to let any socket read and write this store',
  );
}

/**
 * Hosts peers over socket.io (DESIGN: Adaptations of the spec): the
 * procedures of the storage's host unit as acknowledged messages (hello,
 * push, snapshot, reconcile, records; changes as a subscription whose pages are acknowledged;
 * snapshot streams pulled chunk by chunk), one unit context per socket.
 * Until a hello succeeds on a socket its messages are held to small bounds
 * (PreAuthGate, SyncomAuthorizeGuard); each envelope is read once, in linear
 * time, by its validation pipe; authorize runs on the checked hello; limits
 * are a guard; every refusal is answered on the message's ack by the
 * exception filter. Wiring only: the engine's unit does the sync.
 * Each procedure's handler names it (SYNCOM_PROCEDURE, read by syncomProcedureOf).
 * Use createSyncomGateway(namespace) to get a decorated class.
 */
@UseGuards(SyncomAckGuard, SyncomAuthorizeGuard, SyncomLimitsGuard)
@UseFilters(SyncomExceptionFilter)
export class SyncomGateway implements OnGatewayInit, OnGatewayConnection, OnModuleInit, OnModuleDestroy {
  /** The namespace served, once initialized. */
  server?: Namespace;
  private readonly logger = new Logger('SyncomGateway');
  /**
   * The gateway's lines about what any client provokes (connections, refusals), each kind at most once per
   * interval with a count of those left out: a line per connection let anyone grow the log at their connection rate.
   */
  private readonly log = new SampledLog(this.logger);
  /**
   * The one host unit every socket reaches, made with the gateway: options
   * it refuses (a maxInFlightFrames past what dialers accept, a pageSize of
   * 0) stop the app's start, where made at afterInit they were logged and the
   * app served on with no unit, failing every message.
   */
  readonly unit: HostUnit;
  private gate?: PreAuthGate;
  /** A connection's second socket on the namespace closes the connection. */
  private single?: OneSocketPerConnection;
  /** The bound on half-received messages over every connection (maxInboundBytes). */
  inbound?: InboundBudget;

  /**
   * @throws TypeError for an allowedOrigins entry that is no http(s) origin: the app does not start.
   * @throws SyncomError GATEWAY_UNGUARDED without `authorize` unless `access: 'public'` is said: the app does not start.
   * @throws SyncomError INVALID_ARGUMENT for a unit option out of its range: the app does not start.
   */
  constructor(
    @Inject(Storage) protected readonly storage: Storage,
    @Inject(SYNCOM_GATEWAY_OPTIONS) protected readonly options: SyncomGatewayOptions,
  ) {
    checkedOrigins(options.allowedOrigins);
    checkedGuard(options);
    // The limits stay with the guards (not the unit's): checked here as a unit checks its own; the timers as the module does.
    unitBounds({ limits: options.limits });
    checkGatewayTimers(options);
    this.unit = hostUnitOf(storage, options);
  }

  /** How long a changes page waits for its ack (from the last ack) before the feed ends. */
  private get ackTimeout(): number {
    return this.options.ackTimeout ?? DEFAULT_ACK_TIMEOUT;
  }

  /**
   * Sizes the engine's messages from the limits, bounds the connections, refuses browser pages of other
   * origins and, under access 'session', adds the handshake middleware.
   */
  afterInit(server: Namespace): void {
    this.server = server;
    hostedOn.set(server, (hostedOn.get(server) ?? new Set()).add(this));
    const bytes = maxMessageBytes(this.options.limits);
    applyMessageLimit(server, serverMessageBytes(server, this, bytes));
    const preAuth = preAuthBytesOf(this.options.preAuthBytes);
    const log = this.log;
    // A greeted connection may hold its feeds' frames in flight, a frame past them and answers as READ_BACKLOG lets them queue: four times the connection's frame budget is past all of it.
    const after = 4 * (this.options.maxConnectionInFlightBytes ?? DEFAULT_CONNECTION_IN_FLIGHT_BYTES);
    const unread = { before: Math.max(PRE_AUTH_UNREAD_BYTES, 4 * preAuth), after, stallMs: this.options.readStallTimeout ?? DEFAULT_READ_STALL_MS };
    this.gate = new PreAuthGate({ namespace: server, bytes: preAuth, unread, frameBytes: bytes, log, greeted: (socket) => peerOf(socket).authenticated });
    capConnections(server, this.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, log);
    this.single = new OneSocketPerConnection(log);
    guardOrigins(server, this.options.allowedOrigins, log);
    this.inbound = new InboundBudget(server, this.options.maxInboundBytes ?? defaultInboundBytes(bytes), log);
    if (this.unit.access === 'session') server.use(createSessionMiddleware(this.options, log));
    this.logger.log(`hosting peers on ${server.name} (access ${this.unit.access}, messages up to ${bytes} bytes, ${preAuth} before a hello)`);
  }

  /**
   * Every gateway was connected to its namespace before any module's init hook runs: a second
   * syncom gateway on this one (two modules hosting on one namespace) would answer every message
   * beside this one, each from its own store.
   *
   * @throws SyncomError GATEWAY_NAMESPACE_TAKEN: the app does not start (before it takes clients).
   */
  onModuleInit(): void {
    const held = this.server && hostedOn.get(this.server);
    if (held && held.size > 1) {
      throw new SyncomError('GATEWAY_NAMESPACE_TAKEN', `${held.size} syncom gateways host peers on the namespace ${this.server?.name}: give each module a gateway.namespace of its own`);
    }
  }

  /** The app closes: the inbound sweep stops (its connections close with the server). */
  onModuleDestroy(): void {
    this.inbound?.stop();
    if (this.server) hostedOn.get(this.server)?.delete(this);
  }

  /** One context per socket; when the socket goes, its feeds and streams end and the unit forgets its session. */
  handleConnection(socket: Socket): void {
    // Its connection closes (this socket's disconnect follows, and the other's): nothing is set up for it.
    if (this.single && !this.single.admit(socket)) return;
    const peer = peerOf(socket);
    peer.unit = this.unit;
    this.gate?.track(socket);
    socket.onAny(answerUnknownEvent);
    // Every hello first ends the session (the guard): until one succeeds, frames are held to the pre-auth bound
    // again, a refused one's too, whichever check refused it (the pipe's, the unit's).
    peer.sessionEnded = () => this.gate?.lower(socket);
    this.log.write('log', 'peer connected', `peer connected: socket ${socket.id} from ${socket.handshake.address}`);
    socket.once('disconnect', (reason: string) => {
      try {
        peer.close(this.unit);
      } catch (error) {
        // A listener that throws would take the server down with it.
        this.logger.error(`closing socket ${socket.id} failed`, thrownText(error));
      }
      const node = peer.context.node ? ` node ${loggedNode(peer.context.node)}` : '';
      this.log.write('log', 'peer disconnected', `peer disconnected: socket ${socket.id}${node} (${reason})`);
    });
  }

  /**
   * hello, read once by its pipe (the guard already ended any earlier
   * session): the unit authorizes and greets the peer; the socket then
   * knows its node id and scopes.
   */
  @SubscribeMessage(SYNCOM_EVENTS.hello)
  @Procedure('hello')
  @UseInterceptors(SyncomUnreadInterceptor)
  async hello(@ConnectedSocket() socket: Socket, @MessageBody(helloPipe) body: HelloDto): Promise<SyncomAnswer> {
    const peer = peerOf(socket);
    const value = await this.unit.call('hello', body, peer.context);
    peer.greet(body.node, body.scopes);
    this.gate?.lift(socket);
    return withPageAcks(answerOk(value), socket, { maxInFlightFrames: this.options.maxInFlightFrames, ackTimeout: this.ackTimeout });
  }

  /** push: the ops the host lacks (the limits guard ran first). */
  @SubscribeMessage(SYNCOM_EVENTS.push)
  @Procedure('push')
  async push(@ConnectedSocket() socket: Socket, @MessageBody(pushPipe) body: PushDto): Promise<SyncomAnswer> {
    return answerOk(await this.unit.call('push', body, peerOf(socket).context));
  }

  /** snapshot: one page, inline or as a stream id. */
  @SubscribeMessage(SYNCOM_EVENTS.snapshot)
  @Procedure('snapshot')
  @UseInterceptors(SyncomUnreadInterceptor)
  async snapshot(@ConnectedSocket() socket: Socket, @MessageBody(snapshotPipe) body: SnapshotDto): Promise<SyncomAnswer> {
    return answerOk(await this.unit.call('snapshot', body, peerOf(socket).context));
  }

  /** reconcile: one round of a scope's set reconciliation (capability reconcile/1). */
  @SubscribeMessage(SYNCOM_EVENTS.reconcile)
  @Procedure('reconcile')
  @UseInterceptors(SyncomUnreadInterceptor)
  async reconcile(@ConnectedSocket() socket: Socket, @MessageBody(reconcilePipe) body: ReconcileDto): Promise<SyncomAnswer> {
    return answerOk(await this.unit.call('reconcile', body, peerOf(socket).context));
  }

  /** records: the merge states of records a reconciliation found different. */
  @SubscribeMessage(SYNCOM_EVENTS.records)
  @Procedure('records')
  @UseInterceptors(SyncomUnreadInterceptor)
  async records(@ConnectedSocket() socket: Socket, @MessageBody(recordsPipe) body: RecordsDto): Promise<SyncomAnswer> {
    return answerOk(await this.unit.call('records', body, peerOf(socket).context));
  }

  /** changes: opens a feed whose pages go out as acknowledged `changes:data` messages. */
  @SubscribeMessage(SYNCOM_EVENTS.changes)
  @Procedure('changes')
  async changes(@ConnectedSocket() socket: Socket, @MessageBody(changesPipe) body: ChangesDto): Promise<SyncomAnswer> {
    await openFeed(peerOf(socket), body, { unit: this.unit, ackTimeout: this.ackTimeout, maxFeeds: this.options.maxFeedsPerConnection });
    return answerOk(null);
  }

  /** unsubscribe: ends a feed. */
  @SubscribeMessage(SYNCOM_EVENTS.unsubscribe)
  unsubscribe(@ConnectedSocket() socket: Socket, @MessageBody(unsubscribePipe) body: UnsubscribeDto): SyncomAnswer {
    peerOf(socket).dropFeed(body.sub);
    return answerOk(null);
  }

  /** chunk: the next chunk of a streamed snapshot page, or (cancel) drops the stream. */
  @SubscribeMessage(SYNCOM_EVENTS.chunk)
  @UseInterceptors(SyncomUnreadInterceptor)
  async chunk(@ConnectedSocket() socket: Socket, @MessageBody(chunkPipe) body: ChunkDto): Promise<SyncomAnswer<ChunkAnswer | null>> {
    const peer = peerOf(socket);
    if (body.cancel) {
      peer.streams.cancel(body.stream);
      return answerOk(null);
    }
    // A stream id is a capability from a snapshot answer, which needs a session; so does pulling it.
    if (peer.context.node === undefined) throw new SyncomError('HELLO_REQUIRED', 'no current hello on this connection: greet again', { status: 428 });
    return answerOk(await peer.streams.pull(this.unit, body.stream, peer.context));
  }
}

/**
 * The gateway class for a namespace (default '/syncom'): socket.io needs the
 * namespace when the class is decorated, before an async options factory
 * ran, hence a factory of subclasses of SyncomGateway. Provide it beside
 * `Storage` and SYNCOM_GATEWAY_OPTIONS. `app`'s guards run after the
 * gateway's own, on every message; its interceptors around every handler.
 *
 * @throws SyncomError INVALID_ARGUMENT for a guard or interceptor that is none.
 *
 * @example
 * providers: [{ provide: SYNCOM_GATEWAY_OPTIONS, useValue: { authorize: (ctx, hello) => tokens.has(hello.token), limits: { opsPerPush: 500 } } }, createSyncomGateway()]
 */
export function createSyncomGateway(
  namespace: string = DEFAULT_NAMESPACE, transports: GatewayTransport[] = [...DEFAULT_TRANSPORTS], app: SyncomGatewayEnhancers = {},
): Type<SyncomGateway> {
  checkGatewayEnhancers(app);
  // WebSocket only by default: every syncom client speaks it, and HTTP long-polling let a client without a token
  // post maxHttpBufferSize of tiny packets that engine.io decodes in one synchronous loop (seconds of a stalled
  // event loop per POST) and queue their answers for a GET that never comes. (Where the app's own gateway made
  // the socket.io server first, its options decide: docs/nest.md.)
  @WebSocketGateway({ namespace, perMessageDeflate: false, transports })
  class NamespacedSyncomGateway extends SyncomGateway {}
  // Nest 11 applies no global guard or interceptor to a gateway: the app's are the subclass's (after SyncomGateway's guards, which it inherits).
  if (app.guards?.length) UseGuards(...app.guards)(NamespacedSyncomGateway);
  if (app.interceptors?.length) UseInterceptors(...app.interceptors)(NamespacedSyncomGateway);
  return NamespacedSyncomGateway;
}
