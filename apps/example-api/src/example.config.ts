import { allowedHostName, type SyncomModuleOptions } from 'syncom-nest';

/** What the example app runs with (DESIGN: Links, apps and scripts). */
export interface ExampleConfig {
  port: number;
  host?: string;
  path: string;
  /** The hub to sync with, e.g. 'http://127.0.0.1:8000/syncom'; unset: this node stays local. */
  hub?: string;
  token?: string;
  /**
   * The field whose value is a record's scope (SYNCOM_SCOPE_FIELD, `$type` by default): the hub's rule,
   * which a hub whose tokens are bound to scopes holds every op to (OUT_OF_SCOPE otherwise).
   */
  scopeField?: string;
  /**
   * DNS names a request's Host may carry beyond IP addresses, localhost, *.localhost and HOST (ALLOWED_HOSTS: a name,
   * or `.example.com` for it and its subdomains); '*': any. Unset: none beyond those.
   */
  allowedHosts?: string[] | '*';
  /** Open the storage with `durable`: every write fsynced before it is answered (SYNCOM_DURABLE=1; default off). */
  durable?: boolean;
  /** socket.io-client options of the link to the hub (tests shorten the reconnection delay). */
  io?: SyncomModuleOptions['io'];
}

/**
 * PORT: digits only, 0 to 65535; unset or empty: 3000. Number() would take '' as 0 (a random port),
 * '0x1F91' as 8081 and '1e3' as 1000 without a word.
 * @throws Error naming PORT and what it takes.
 */
function portOf(env: NodeJS.ProcessEnv): number {
  const raw = env.PORT?.trim();
  if (raw === undefined || raw === '') return 3000;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port <= 65535)) throw new Error(`PORT=${JSON.stringify(raw)}: expected a whole number from 0 to 65535`);
  return port;
}

/**
 * SYNCOM_DURABLE: 1 or true on; unset, empty, 0 or false off.
 * @throws Error naming it for anything else (`yes`, `on`): a setting left silently off is worse than a refused start.
 */
function durableVar(env: NodeJS.ProcessEnv): boolean {
  const raw = env.SYNCOM_DURABLE?.trim() ?? '';
  if (raw === '1' || raw === 'true') return true;
  if (raw === '' || raw === '0' || raw === 'false') return false;
  throw new Error(`SYNCOM_DURABLE=${JSON.stringify(raw)}: expected 1 or true, 0 or false`);
}

/**
 * ALLOWED_HOSTS: `*` alone, or host names separated by commas (lower-cased, a trailing dot dropped); unset or empty: none.
 * @throws Error naming ALLOWED_HOSTS and the first entry that is no host name (a port, a scheme, `*.x`).
 */
function allowedHostsVar(env: NodeJS.ProcessEnv): string[] | '*' {
  const raw = env.ALLOWED_HOSTS ?? '';
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  if (entries.length === 1 && entries[0] === '*') return '*';
  return entries.map((entry) => {
    const host = allowedHostName(entry);
    if (host === undefined) throw new Error(`ALLOWED_HOSTS=${JSON.stringify(raw)}: ${JSON.stringify(entry)} is no host name: expected * alone, or names (api.example, .example.com for a domain and its subdomains) separated by commas, without scheme or port`);
    return host;
  });
}

/**
 * From the environment: PORT (3000), HOST (0.0.0.0), SYNCOM_PATH (./data/example-api), SYNCOM_HUB, SYNCOM_TOKEN,
 * SYNCOM_SCOPE_FIELD ($type, as the hub's), SYNCOM_DURABLE (off), ALLOWED_HOSTS (none).
 * @throws Error naming PORT when it is no port, or ALLOWED_HOSTS when it holds no host name (before anything is opened).
 */
export function exampleConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ExampleConfig {
  return {
    port: portOf(env),
    host: env.HOST ?? '0.0.0.0',
    path: env.SYNCOM_PATH ?? './data/example-api',
    hub: env.SYNCOM_HUB || undefined,
    token: env.SYNCOM_TOKEN || undefined,
    scopeField: env.SYNCOM_SCOPE_FIELD?.trim() || undefined,
    allowedHosts: allowedHostsVar(env),
    durable: durableVar(env),
  };
}
