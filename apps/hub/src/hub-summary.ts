import { DEFAULT_SCOPE_FIELD, type HubConfig, hubLimits, hubSignatures } from './hub.config';

const size = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

/** What an operator must hear at start about choices that weaken the hub (each one a warning line). */
export function hubWarnings(config: HubConfig): string[] {
  const out: string[] = [];
  if (config.tokens.length === 0) out.push('SYNCOM_TOKENS is unset: any peer may sync with this hub');
  const sig = hubSignatures(config);
  if (sig === 'verify') out.push("SYNCOM_SIGNATURES=verify: unsigned ops are taken, so a token holder can write in another node's name");
  if (sig === false) out.push('SYNCOM_SIGNATURES=false: signatures are neither made nor checked, so a token holder can write in any node\'s name');
  return out;
}

/** Who may connect, and how ops are checked: the first line of the summary. */
function accessLine(config: HubConfig, url: string): string {
  const bound = Object.keys(config.tokenScopes ?? {}).length;
  const tokens = config.tokens.length === 0
    ? 'tokens NOT required (open)'
    : `tokens required (${config.tokens.length}${bound > 0 ? `, ${bound} bound to scopes` : ''})`;
  return `data ${config.path}; peers dial ${url}/syncom; ${tokens}; signatures ${hubSignatures(config) || 'off'}; scope field ${config.scopeField ?? DEFAULT_SCOPE_FIELD}`;
}

/** The limits in force: the second line of the summary. */
function limitsLine(config: HubConfig): string {
  const l = hubLimits(config);
  // The gateway keys the rate on the token (all its sockets share it), or on the socket of an open hub.
  const per = config.tokens.length > 0 ? 'token' : 'socket';
  const rate = `${l.opsPerSecond > 0 ? `${l.opsPerSecond} ops/s` : 'no ops/s limit'}, ${l.purgesPerSecond > 0 ? `${l.purgesPerSecond} purges/s` : 'no purges/s limit'}${l.opsPerSecond > 0 || l.purgesPerSecond > 0 ? ` per ${per}` : ''}`;
  const sockets = config.tokens.length === 0 ? 'no socket cap (open hub)' : l.socketsPerToken > 0 ? `${l.socketsPerToken} sockets per token` : 'no socket cap';
  return `limits: ${l.opsPerPush} ops and ${size(l.bytesPerPush)} per push, ${rate}; pages of ${l.pageSize} records and ${size(l.pageBytes)}, `
    + `${l.maxInFlightFrames} in flight per socket, ${size(l.inFlightBytes)} in all; ${sockets}, ${l.feedsPerSocket} feeds per socket; `
    + `/health ${config.healthDetail ? 'detailed' : 'brief'}`;
}

/** The two lines logged once the hub listens on `url`: where its data is, who may sync, and the limits. */
export function hubSummary(config: HubConfig, url: string): string[] {
  return [accessLine(config, url), limitsLine(config)];
}
