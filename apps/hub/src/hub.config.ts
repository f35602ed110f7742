import { MAX_IN_FLIGHT_FRAMES, nearestName } from 'syncom';
import { isHubUrl, type SyncomModuleOptions } from 'syncom-nest';
import type { TokenScopes } from './hub-access';
import { defaultWebDir, WEB_DIR_HOLDS_DATA, webDirServesData } from './web-app';
import { badVariable, choiceVar, flagVar, type HostList, hostList, intVar, list, type OriginList, originList, tokenList } from './hub-env';

/** How the hub treats ops without a signature: 'require' refuses them (the hub's default), 'verify' takes them, false skips checks. */
export type HubSignatures = 'require' | 'verify' | false;

/** What the hub bounds (each has a default, HUB_LIMITS). */
export interface HubLimits {
  /** Ops in one push; more -> 413 OPS_PER_PUSH (SYNCOM_OPS_PER_PUSH). */
  opsPerPush: number;
  /** UTF-8 bytes of one push's ops; more -> 413 BYTES_PER_PUSH (SYNCOM_BYTES_PER_PUSH). */
  bytesPerPush: number;
  /** Ops per second per token, all its sockets together (a bucket holding one second's worth); more -> 429; 0: off (SYNCOM_OPS_PER_SECOND). */
  opsPerSecond: number;
  /** Purges per second per token, as opsPerSecond (a push with more passes on a full bucket and the next ones wait); more -> 429 PURGES_PER_SECOND; 0: off (SYNCOM_PURGES_PER_SECOND). */
  purgesPerSecond: number;
  /** Records per snapshot page, ops per changes page (SYNCOM_PAGE_SIZE). */
  pageSize: number;
  /** The most a snapshot or changes page weighs, UTF-8 bytes (SYNCOM_PAGE_BYTES). */
  pageBytes: number;
  /** Pages out to one socket unacknowledged at once (SYNCOM_MAX_IN_FLIGHT_FRAMES). */
  maxInFlightFrames: number;
  /** Sockets one token may hold open at this hub process; the next is refused at the handshake; 0: no cap (SYNCOM_SOCKETS_PER_TOKEN). */
  socketsPerToken: number;
  /** Changes feeds one socket may hold open; one more is refused 429 TOO_MANY_FEEDS (SYNCOM_FEEDS_PER_SOCKET). */
  feedsPerSocket: number;
  /** UTF-8 bytes of pages out unacknowledged over every socket, before each socket is held to one page out (SYNCOM_IN_FLIGHT_BYTES). */
  inFlightBytes: number;
  /** UTF-8 bytes a message may weigh on an open hub's socket before its hello succeeds; more closes it unparsed (SYNCOM_PRE_AUTH_BYTES). */
  preAuthBytes: number;
  /** Connections the hub process holds at once; the next handshake is refused 403; 0: no cap (SYNCOM_MAX_CONNECTIONS). */
  maxConnections: number;
  /**
   * Bytes of half-sent messages over every connection; past it the longest holders are closed, largest first; 0: no
   * bound (SYNCOM_MAX_INBOUND_BYTES; unset: sixteen of the largest message, at least 64 MiB).
   */
  inboundBytes?: number;
}

const MiB = 1024 * 1024;

/** The hub's limits when nothing else is said. */
export const HUB_LIMITS: Readonly<HubLimits> = Object.freeze({
  opsPerPush: 500, bytesPerPush: 4 * MiB, opsPerSecond: 2000, purgesPerSecond: 100, pageSize: 500, pageBytes: 4 * MiB, maxInFlightFrames: 16, socketsPerToken: 32,
  feedsPerSocket: 8, inFlightBytes: 64 * MiB, preAuthBytes: 64 * 1024, maxConnections: 10_000,
});

/** The field whose value is a record's scope in the hub when nothing else is said (SYNCOM_SCOPE_FIELD). */
export const DEFAULT_SCOPE_FIELD = '$type';

/** What a hub runs with (DESIGN: Links, apps and scripts; README: Several hubs; docs/hub-security.md). */
export interface HubConfig {
  /** SYNCOM_* variables set that the hub does not read (a warning each at start, naming the likely one). */
  strayVariables?: string[];
  port: number;
  host?: string;
  path: string;
  /** Tokens a peer may present at the handshake and in hello; empty: the hub is open (a warning at start). */
  tokens: string[];
  /**
   * The scopes a token may claim in hello (SYNCOM_TOKENS `t:Doc+Note`); a token not listed may claim any.
   * A Map (what the environment gives), or an object whose own keys are the tokens.
   */
  tokenScopes?: TokenScopes;
  /**
   * The browser origins whose pages may open a socket (SYNCOM_ALLOWED_ORIGINS): '*' any, or a list; the hub's own
   * origin and clients that send no Origin (every non-browser one) always may. Default: '*' with tokens (a page of
   * another site cannot know one), none beyond the hub's own without.
   */
  allowedOrigins?: OriginList;
  /**
   * The host names (Host header) the hub answers HTTP requests and handshakes for beyond IP addresses, localhost,
   * the hosts of allowedOrigins and HOST (SYNCOM_ALLOWED_HOSTS): '*' any, or names (`.example.com`: it and its
   * subdomains). A DNS-rebinding page comes under a name of its own. Default: none beyond those on an open hub,
   * any with tokens (a rebinding page cannot know one); set, it holds a hub with tokens too.
   */
  allowedHosts?: HostList;
  /** Signature mode of the hub's storage (SYNCOM_SIGNATURES); default 'require'. */
  signatures?: HubSignatures;
  /** The hub's limits; each one not given is HUB_LIMITS'. */
  limits?: Partial<HubLimits>;
  /** A record's scope is data[scopeField] when that is a non-empty string, else '*' (SYNCOM_SCOPE_FIELD, default '$type'). */
  scopeField?: string;
  /** Every hello must prove its node id by signing a challenge (SYNCOM_PROVE_NODES=1; default off). */
  proveNodes?: boolean;
  /** GET /health adds the vector, the dialed peers and the hosted feeds (SYNCOM_HEALTH_DETAIL=1). */
  healthDetail?: boolean;
  /** Serve GET /metrics in the Prometheus text format (SYNCOM_METRICS=1). */
  metrics?: boolean;
  /** Open the storage with `durable`: every write fsynced before it is acknowledged (SYNCOM_DURABLE=1; default off). */
  durable?: boolean;
  /** Serve GET /load-probe: RSS, heap and event-loop delay, for `npm run load` (SYNCOM_LOAD_PROBE=1). */
  loadProbe?: boolean;
  /**
   * GET /load-probe?gc=1 runs a full collection first (with --expose-gc), which stops the hub for tens of ms at
   * each request: honoured only with this on (SYNCOM_LOAD_PROBE_GC; from the environment, on by default only
   * for a loopback HOST, where the load tool runs its hub). Default false.
   */
  loadProbeGc?: boolean;
  /**
   * The other hubs this one dials, e.g. 'http://10.0.0.2:8000/syncom' (SYNCOM_PEERS). The list is
   * the hub's whole registry: a url registered before and no longer listed is removed at start.
   */
  peers?: string[];
  /** The token this hub presents to its peers (SYNCOM_PEER_TOKEN); default: the first of `tokens`. */
  peerToken?: string;
  /** A Redis url for socket.io's Redis adapter (SYNCOM_REDIS_URL): rooms and fetchSockets() span the hubs. */
  redisUrl?: string;
  /** How long Redis may take to answer, in ms (SYNCOM_REDIS_TIMEOUT, default 5000): at start the hub fails after it, later a stall is logged. */
  redisTimeout?: number;
  /** socket.io-client options of the links to peers (tests shorten the reconnection delay). */
  io?: SyncomModuleOptions['io'];
  /** The built web app served at `/` (SYNCOM_WEB_DIR); default apps/web/dist; false: nothing served. */
  webDir?: string | false;
  /** The log's lines: 'text' (Nest's console format, the default) or 'json', one object a line (SYNCOM_LOG_FORMAT). */
  logFormat?: 'text' | 'json';
}

/** The limits in force: the config's, else the defaults. */
export function hubLimits(config: Pick<HubConfig, 'limits'>): HubLimits {
  return { ...HUB_LIMITS, ...config.limits };
}

/** The signature mode in force: the config's, else 'require'. */
export function hubSignatures(config: Pick<HubConfig, 'signatures'>): HubSignatures {
  return config.signatures ?? 'require';
}

/** SYNCOM_* limits from the environment; each is checked here, before anything is opened. */
function limitsFromEnv(env: NodeJS.ProcessEnv): HubLimits {
  const d = HUB_LIMITS;
  const int = (name: string, fallback: number, min = 1) => intVar(env, name, fallback, { min });
  return {
    opsPerPush: int('SYNCOM_OPS_PER_PUSH', d.opsPerPush),
    bytesPerPush: int('SYNCOM_BYTES_PER_PUSH', d.bytesPerPush, 1024),
    opsPerSecond: int('SYNCOM_OPS_PER_SECOND', d.opsPerSecond, 0),
    purgesPerSecond: int('SYNCOM_PURGES_PER_SECOND', d.purgesPerSecond, 0),
    pageSize: int('SYNCOM_PAGE_SIZE', d.pageSize),
    pageBytes: int('SYNCOM_PAGE_BYTES', d.pageBytes, 1024),
    maxInFlightFrames: intVar(env, 'SYNCOM_MAX_IN_FLIGHT_FRAMES', d.maxInFlightFrames, { min: 1, max: MAX_IN_FLIGHT_FRAMES }),
    socketsPerToken: int('SYNCOM_SOCKETS_PER_TOKEN', d.socketsPerToken, 0),
    feedsPerSocket: int('SYNCOM_FEEDS_PER_SOCKET', d.feedsPerSocket),
    inFlightBytes: int('SYNCOM_IN_FLIGHT_BYTES', d.inFlightBytes, 1024),
    preAuthBytes: int('SYNCOM_PRE_AUTH_BYTES', d.preAuthBytes, 1024),
    maxConnections: int('SYNCOM_MAX_CONNECTIONS', d.maxConnections, 0),
    // Empty is the default, as for every other limit: not 0, which would turn the bound off.
    ...(env.SYNCOM_MAX_INBOUND_BYTES?.trim() && { inboundBytes: int('SYNCOM_MAX_INBOUND_BYTES', 0, 0) }),
  };
}

/** SYNCOM_SIGNATURES: 'require' (default), 'verify' or 'false'. */
function signaturesFromEnv(env: NodeJS.ProcessEnv): HubSignatures {
  const mode = choiceVar(env, 'SYNCOM_SIGNATURES', ['require', 'verify', 'false'] as const, 'require');
  return mode === 'false' ? false : mode;
}

/** Whether `host` is a loopback address: only this machine reaches a hub bound to it. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** SYNCOM_LOAD_PROBE and SYNCOM_LOAD_PROBE_GC: the probe, and whether its gc=1 is honoured (unset: on a loopback host only). */
function loadProbeFromEnv(env: NodeJS.ProcessEnv, host: string): Pick<HubConfig, 'loadProbe' | 'loadProbeGc'> {
  const gc = env.SYNCOM_LOAD_PROBE_GC?.trim() ? flagVar(env, 'SYNCOM_LOAD_PROBE_GC') : isLoopback(host);
  return flagVar(env, 'SYNCOM_LOAD_PROBE') ? { loadProbe: true, loadProbeGc: gc } : {};
}

/** Every SYNCOM_* variable the hub reads (docs/operations.md). */
export const HUB_VARIABLES = [
  'SYNCOM_PATH', 'SYNCOM_TOKENS', 'SYNCOM_SIGNATURES', 'SYNCOM_OPS_PER_PUSH', 'SYNCOM_BYTES_PER_PUSH', 'SYNCOM_OPS_PER_SECOND',
  'SYNCOM_PURGES_PER_SECOND', 'SYNCOM_PAGE_SIZE', 'SYNCOM_PAGE_BYTES', 'SYNCOM_MAX_IN_FLIGHT_FRAMES', 'SYNCOM_IN_FLIGHT_BYTES',
  'SYNCOM_SOCKETS_PER_TOKEN', 'SYNCOM_FEEDS_PER_SOCKET', 'SYNCOM_MAX_CONNECTIONS', 'SYNCOM_MAX_INBOUND_BYTES', 'SYNCOM_PRE_AUTH_BYTES',
  'SYNCOM_SCOPE_FIELD', 'SYNCOM_DURABLE', 'SYNCOM_PROVE_NODES', 'SYNCOM_HEALTH_DETAIL', 'SYNCOM_METRICS', 'SYNCOM_ALLOWED_ORIGINS', 'SYNCOM_ALLOWED_HOSTS',
  'SYNCOM_PEERS', 'SYNCOM_PEER_TOKEN', 'SYNCOM_REDIS_URL', 'SYNCOM_REDIS_TIMEOUT', 'SYNCOM_LOAD_PROBE', 'SYNCOM_LOAD_PROBE_GC', 'SYNCOM_WEB_DIR',
  'SYNCOM_LOG_FORMAT',
] as const;

/**
 * The SYNCOM_* variables set that the hub does not read, each with the one it most likely meant: a
 * misspelt tokens variable (the singular) had started an open hub with only the generic warning about tokens.
 */
function strayVariables(env: NodeJS.ProcessEnv): string[] {
  const stray = Object.keys(env).filter((k) => k.startsWith('SYNCOM_') && !(HUB_VARIABLES as readonly string[]).includes(k)).sort();
  checkTokensMeant(env, stray);
  return stray.map((k) => {
    const near = nearestName(k, HUB_VARIABLES);
    return `${k} is set but the hub reads no such variable${near ? ` (did you mean ${near}?)` : ''}`;
  });
}

/**
 * A stray variable named as SYNCOM_TOKENS begins, but for its last letter (the singular, or the tokens variable
 * with _FILE after it, the Docker secrets habit), with SYNCOM_TOKENS unset: the operator meant tokens, and a
 * warning beside an open hub had left it open to any peer. The names are not written out here: a variable the
 * sources name is taken as one the hub reads (test/env-traps.e2e-spec.ts).
 * @throws SyncomError HUB_CONFIG naming the stray variable (never its value, which may be a token).
 */
function checkTokensMeant(env: NodeJS.ProcessEnv, stray: readonly string[]): void {
  const meant = stray.find((k) => k.startsWith('SYNCOM_TOKENS'.slice(0, -1)));
  if (meant === undefined || env.SYNCOM_TOKENS !== undefined) return;
  throw badVariable(meant, undefined, `is set but the hub reads no such variable, and SYNCOM_TOKENS is unset: the hub would start open to any peer. `
    + `Give the tokens in SYNCOM_TOKENS (from a secret file: SYNCOM_TOKENS="$(cat /run/secrets/tokens)"), or unset ${meant} to run an open hub`);
}

/** Whether `raw` parses as a url whose protocol `protocol` matches. */
function isUrlOf(raw: string, protocol: RegExp): boolean {
  try {
    return protocol.test(new URL(raw).protocol);
  } catch {
    return false;
  }
}

/** SYNCOM_PEERS: hub urls the default connect dials (isHubUrl: http, https, ws or wss). A refused item is named by its place, not shown: a url may hold a password. */
function peerList(env: NodeJS.ProcessEnv): string[] {
  const peers = [...new Set(list(env.SYNCOM_PEERS))];
  const bad = peers.findIndex((p) => !isHubUrl(p));
  if (bad >= 0) throw badVariable('SYNCOM_PEERS', undefined, `item ${bad + 1} is no hub url (http(s)://host:port/syncom)`);
  return peers;
}

/**
 * Whether node-redis reads `url` (its parseURL): a path that is no database number, or user info that does not
 * percent-decode, threw from createClient once the storage had opened, a stack trace instead of this variable's name.
 */
function redisReads(url: string): boolean {
  const u = new URL(url);
  try {
    decodeURIComponent(u.username);
    decodeURIComponent(u.password);
  } catch {
    return false;
  }
  return /^\/?(\d+)?$/.test(u.pathname);
}

/** SYNCOM_REDIS_URL: a redis:// or rediss:// url (checked before the data directory is made). Its value, which may hold a password, is not shown. */
function redisUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SYNCOM_REDIS_URL?.trim();
  if (!raw) return undefined;
  if (!isUrlOf(raw, /^rediss?:$/)) throw badVariable('SYNCOM_REDIS_URL', undefined, 'must be a redis:// or rediss:// url');
  if (!redisReads(raw)) throw badVariable('SYNCOM_REDIS_URL', undefined, 'its path must be empty or a database number (/0), its user info percent-encoded');
  return raw;
}

/** The longest delay a Node timer holds: a longer one fires at once (TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** SYNCOM_PATH: unset is ./data/hub; set but blank is refused, as a default in its place would open a new node elsewhere. */
function dataPath(env: NodeJS.ProcessEnv): string {
  const raw = env.SYNCOM_PATH;
  if (raw === undefined) return './data/hub';
  if (raw.trim() === '') throw badVariable('SYNCOM_PATH', undefined, 'is set but empty (unset it for ./data/hub)');
  return raw;
}

/**
 * HOST, trimmed: unset is 0.0.0.0. Set but blank is refused: Node's listen() took '' for every address
 * while the start said it listens on [::1], and a host with a space failed to resolve once the storage had opened.
 */
function hostVar(env: NodeJS.ProcessEnv): string {
  const raw = env.HOST;
  if (raw === undefined) return '0.0.0.0';
  if (raw.trim() === '') throw badVariable('HOST', undefined, 'is set but empty (unset it for 0.0.0.0, every address)');
  return raw.trim();
}

/**
 * The hub's config from its environment (docs/hub-security.md lists every variable): PORT (8000),
 * HOST (0.0.0.0), SYNCOM_PATH (./data/hub), SYNCOM_TOKENS (`t1,t2:Doc+Note`), SYNCOM_SIGNATURES,
 * the limits (SYNCOM_OPS_PER_PUSH ...), SYNCOM_SCOPE_FIELD, SYNCOM_DURABLE, SYNCOM_PROVE_NODES, SYNCOM_HEALTH_DETAIL, SYNCOM_METRICS,
 * SYNCOM_ALLOWED_ORIGINS, SYNCOM_ALLOWED_HOSTS, SYNCOM_PEERS, SYNCOM_PEER_TOKEN, SYNCOM_REDIS_URL, SYNCOM_REDIS_TIMEOUT, SYNCOM_LOAD_PROBE,
 * SYNCOM_LOAD_PROBE_GC, SYNCOM_WEB_DIR, SYNCOM_LOG_FORMAT.
 * @throws SyncomError HUB_CONFIG naming the first variable that does not parse.
 */
export function hubConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HubConfig {
  const { tokens, tokenScopes } = tokenList(env);
  const allowedOrigins = originList(env);
  const allowedHosts = hostList(env);
  const scopeField = env.SYNCOM_SCOPE_FIELD?.trim();
  const peerToken = env.SYNCOM_PEER_TOKEN?.trim();
  const host = hostVar(env);
  const redis = redisUrl(env);
  const stray = strayVariables(env);
  const path = dataPath(env);
  const webDir = env.SYNCOM_WEB_DIR ? webDirVar(env.SYNCOM_WEB_DIR) : undefined;
  // Checked before the data directory is made: a key written into a served folder is out already.
  const served = webDir ?? defaultWebDir();
  if (served !== false && webDirServesData(served, path)) throw badVariable('SYNCOM_WEB_DIR', undefined, WEB_DIR_HOLDS_DATA);
  return {
    port: intVar(env, 'PORT', 8000, { min: 0, max: 65535 }),
    host,
    path,
    tokens,
    ...(tokenScopes.size > 0 && { tokenScopes }),
    ...(allowedOrigins !== undefined && { allowedOrigins }),
    ...(allowedHosts !== undefined && { allowedHosts }),
    signatures: signaturesFromEnv(env),
    limits: limitsFromEnv(env),
    scopeField: scopeField || DEFAULT_SCOPE_FIELD,
    ...(flagVar(env, 'SYNCOM_PROVE_NODES') && { proveNodes: true }),
    healthDetail: flagVar(env, 'SYNCOM_HEALTH_DETAIL'),
    metrics: flagVar(env, 'SYNCOM_METRICS'),
    durable: flagVar(env, 'SYNCOM_DURABLE'),
    ...loadProbeFromEnv(env, host),
    peers: peerList(env),
    ...(peerToken && { peerToken }),
    ...(redis !== undefined && { redisUrl: redis }),
    ...(env.SYNCOM_REDIS_TIMEOUT && { redisTimeout: intVar(env, 'SYNCOM_REDIS_TIMEOUT', 5000, { min: 100, max: MAX_TIMER_MS }) }),
    ...(webDir !== undefined && { webDir }),
    logFormat: choiceVar(env, 'SYNCOM_LOG_FORMAT', ['text', 'json'] as const, 'text'),
    ...(stray.length > 0 && { strayVariables: stray }),
  };
}

/** SYNCOM_WEB_DIR: a folder, or `false` (or `0`, a flag's off) for none: an environment variable is text, and no folder is meant by it. */
function webDirVar(raw: string): string | false {
  const v = raw.trim();
  return v === 'false' || v === '0' ? false : raw;
}
