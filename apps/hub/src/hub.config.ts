/** What a hub runs with (DESIGN: Links, apps and scripts). */
export interface HubConfig {
  port: number;
  host?: string;
  path: string;
  /** Tokens a peer may present at hello; empty: the hub is open (a warning at start). */
  tokens: string[];
  /** Serve GET /metrics in the Prometheus text format (SYNCOM_METRICS=1). */
  metrics?: boolean;
}

/**
 * The hub's config from its environment: PORT (8000), HOST (0.0.0.0), SYNCOM_PATH (./data/hub),
 * SYNCOM_TOKENS (comma-separated), SYNCOM_METRICS ('1' serves GET /metrics).
 */
export function hubConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HubConfig {
  return {
    port: Number(env.PORT ?? 8000),
    host: env.HOST ?? '0.0.0.0',
    path: env.SYNCOM_PATH ?? './data/hub',
    tokens: (env.SYNCOM_TOKENS ?? '').split(',').map((t) => t.trim()).filter(Boolean),
    metrics: env.SYNCOM_METRICS === '1',
  };
}
