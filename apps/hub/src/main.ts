import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createHub } from './create-hub';
import { type HubConfig, hubConfigFromEnv } from './hub.config';

/** The config, or one line naming the variable at fault and exit 1: nothing is opened before the environment is sound. */
function configOrExit(): HubConfig {
  try {
    return hubConfigFromEnv();
  } catch (e) {
    process.stderr.write(`hub: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}

createHub(configOrExit()).catch((e) => {
  new Logger('Hub').error(e instanceof Error ? e.stack : String(e));
  process.exit(1);
});
