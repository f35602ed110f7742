import { scopeMap } from './hub-access';
import { DEFAULT_SCOPE_FIELD, type HubConfig, hubLimits, hubSignatures, isLoopback } from './hub.config';
import { allowedHosts } from './hub-hosts';

const size = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

/** Tokens shorter than this are warned about at start: a client that tries tokens, handshake after handshake, could guess a short one. */
export const MIN_TOKEN_LENGTH = 16;

/** What an operator must hear at start about choices that weaken the hub (each one a warning line). */
export function hubWarnings(config: HubConfig): string[] {
  const out: string[] = [...(config.strayVariables ?? [])];
  if (config.tokens.length === 0) out.push('SYNCOM_TOKENS is unset: any peer may sync with this hub');
  // Named by place, never by text (tokens are secrets); a short one falls to a client trying tokens over the network.
  config.tokens.forEach((token, i) => {
    if (token.length < MIN_TOKEN_LENGTH) out.push(`SYNCOM_TOKENS item ${i + 1} is ${token.length} character${token.length === 1 ? '' : 's'} long: a client trying tokens can guess one that short; use ${MIN_TOKEN_LENGTH * 2} random characters (openssl rand -hex ${MIN_TOKEN_LENGTH})`);
  });
  const sig = hubSignatures(config);
  if (sig === 'verify') out.push("SYNCOM_SIGNATURES=verify: unsigned ops are taken, so a token holder can write in another node's name");
  if (sig === false) out.push('SYNCOM_SIGNATURES=false: signatures are neither made nor checked, so a token holder can write in any node\'s name');
  const host = config.host ?? '127.0.0.1';
  if (config.loadProbe && !isLoopback(host)) out.push(`SYNCOM_LOAD_PROBE=1 on HOST ${host}: GET /load-probe answers anyone who reaches the port, without a token`);
  return out;
}

/** Which browser pages may open a socket (the gateway's allowedOrigins, as hub.module sets it). */
function originsPart(config: HubConfig): string {
  const listed = config.allowedOrigins ?? (config.tokens.length > 0 ? '*' : []);
  if (listed === '*') return 'browsers from any origin';
  return listed.length === 0 ? 'browsers from this origin only' : `browsers from this origin and ${listed.join(', ')}`;
}

/** Which host names the hub answers for, where it checks them (a name not listed is refused 403). */
function hostsPart(config: HubConfig): string {
  const hosts = allowedHosts(config);
  return hosts ? `; host names: IP addresses, localhost${hosts.map((h) => `, ${h}`).join('')} (SYNCOM_ALLOWED_HOSTS)` : '';
}

/** Who may connect, and how ops are checked: the first line of the summary. */
function accessLine(config: HubConfig, url: string): string {
  const bound = scopeMap(config.tokenScopes).size;
  const tokens = config.tokens.length === 0
    ? 'tokens NOT required (open)'
    : `tokens required (${config.tokens.length}${bound > 0 ? `, ${bound} bound to scopes` : ''})`;
  return `data ${config.path}${config.durable ? ' (writes fsynced)' : ''}; peers dial ${url}/syncom; ${tokens}; signatures ${hubSignatures(config) || 'off'}; scope field ${config.scopeField ?? DEFAULT_SCOPE_FIELD}; ${originsPart(config)}${hostsPart(config)}`;
}

/**
 * A line per token bound to scopes, naming it by its place in the list, never by its text: a token
 * holding ':' is read as a shorter token bound to what follows, and this is where the operator sees it.
 */
function boundLines(config: HubConfig): string[] {
  const bound = scopeMap(config.tokenScopes);
  return config.tokens.flatMap((token, i) => {
    const scopes = bound.get(token);
    return scopes ? [`SYNCOM_TOKENS item ${i + 1} may claim only the scopes ${scopes.map((s) => JSON.stringify(s)).join(', ')}`] : [];
  });
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

/** The lines logged once the hub listens on `url`: where its data is, who may sync, the limits, and each token's scopes. */
export function hubSummary(config: HubConfig, url: string): string[] {
  return [accessLine(config, url), limitsLine(config), ...boundLines(config)];
}
