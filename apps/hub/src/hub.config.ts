import type { SyncomModuleOptions } from 'syncom-nest';

/** What a hub runs with (DESIGN: Links, apps and scripts; README: Several hubs). */
export interface HubConfig {
  port: number;
  host?: string;
  path: string;
  /** Tokens a peer may present at hello; empty: the hub is open (a warning at start). */
  tokens: string[];
  /** Serve GET /metrics in the Prometheus text format (SYNCOM_METRICS=1). */
  metrics?: boolean;
  /** Serve GET /load-probe: RSS, heap and event-loop delay, for `npm run load` (SYNCOM_LOAD_PROBE=1). */
  loadProbe?: boolean;
  /**
   * The other hubs this one dials, e.g. 'http://10.0.0.2:8000/syncom' (SYNCOM_PEERS). The list is
   * the hub's whole registry: a url registered before and no longer listed is removed at start.
   */
  peers?: string[];
  /** The token this hub presents to its peers (SYNCOM_PEER_TOKEN); default: the first of `tokens`. */
  peerToken?: string;
  /** A Redis url for socket.io's Redis adapter (SYNCOM_REDIS_URL): rooms and fetchSockets() span the hubs. */
  redisUrl?: string;
  /** socket.io-client options of the links to peers (tests shorten the reconnection delay). */
  io?: SyncomModuleOptions['io'];
}

/** A comma-separated list, trimmed, without empty items. */
function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((t) => t.trim()).filter(Boolean);
}

/**
 * The hub's config from its environment: PORT (8000), HOST (0.0.0.0), SYNCOM_PATH (./data/hub),
 * SYNCOM_TOKENS (comma-separated), SYNCOM_METRICS ('1' serves GET /metrics), SYNCOM_PEERS
 * (comma-separated hub urls), SYNCOM_PEER_TOKEN, SYNCOM_REDIS_URL, SYNCOM_LOAD_PROBE ('1' serves GET /load-probe).
 */
export function hubConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HubConfig {
  return {
    port: Number(env.PORT ?? 8000),
    host: env.HOST ?? '0.0.0.0',
    path: env.SYNCOM_PATH ?? './data/hub',
    tokens: list(env.SYNCOM_TOKENS),
    metrics: env.SYNCOM_METRICS === '1',
    ...(env.SYNCOM_LOAD_PROBE === '1' && { loadProbe: true }),
    peers: [...new Set(list(env.SYNCOM_PEERS))],
    ...(env.SYNCOM_PEER_TOKEN && { peerToken: env.SYNCOM_PEER_TOKEN }),
    ...(env.SYNCOM_REDIS_URL && { redisUrl: env.SYNCOM_REDIS_URL }),
  };
}
