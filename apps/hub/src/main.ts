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

/**
 * A start that failed once the environment parsed (the path LOCKED by another process, a damaged store): one
 * line with the error's code and its message, which says what to do, then the stack for a bug report. A stack
 * alone had left the operator to find the code in Nest's dump of the error object above it.
 */
function startFailed(e: unknown): never {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  new Logger('Hub').error(`could not start: ${typeof code === 'string' ? `${code}: ` : ''}${message}`, e instanceof Error ? e.stack : undefined);
  process.exit(1);
}

createHub(configOrExit()).catch(startFailed);
