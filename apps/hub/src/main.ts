import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { failedStartLine } from 'syncom-nest';
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

/** A start that failed once the environment parsed: one line with the code, then the stack for a bug report. */
function startFailed(e: unknown): never {
  new Logger('Hub').error(failedStartLine(e), e instanceof Error ? e.stack : undefined);
  process.exit(1);
}

createHub(configOrExit()).catch(startFailed);
