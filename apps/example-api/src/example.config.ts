import type { SyncomModuleOptions } from 'syncom-nest';

/** What the example app runs with (DESIGN: Links, apps and scripts). */
export interface ExampleConfig {
  port: number;
  host?: string;
  path: string;
  /** The hub to sync with, e.g. 'http://127.0.0.1:8000/syncom'; unset: this node stays local. */
  hub?: string;
  token?: string;
  /** socket.io-client options of the link to the hub (tests shorten the reconnection delay). */
  io?: SyncomModuleOptions['io'];
}

/** From the environment: PORT (3000), HOST (0.0.0.0), SYNCOM_PATH (./data/example-api), SYNCOM_HUB, SYNCOM_TOKEN. */
export function exampleConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ExampleConfig {
  return {
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '0.0.0.0',
    path: env.SYNCOM_PATH ?? './data/example-api',
    hub: env.SYNCOM_HUB || undefined,
    token: env.SYNCOM_TOKEN || undefined,
  };
}
