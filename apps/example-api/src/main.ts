import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loggedUrl } from 'syncom-nest';
import { createExampleApi } from './create-example-api';
import { type ExampleConfig, exampleConfigFromEnv } from './example.config';

/** The config, or one line naming the variable at fault and exit 1: nothing is opened before the environment is sound. */
function configOrExit(): ExampleConfig {
  try {
    return exampleConfigFromEnv();
  } catch (e) {
    process.stderr.write(`example-api: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  const app = await createExampleApi(config);
  new Logger('ExampleApi').log(`listening on ${await app.getUrl()}${config.hub ? `, syncing with ${loggedUrl(config.hub)}` : ', local only'}`);
}

/**
 * A start that failed once the environment parsed (the path LOCKED by another process, a damaged store): one
 * line with the error's code and its message, which says what to do, then the stack for a bug report. A stack
 * alone had left the operator to find the code in Nest's dump of the error object above it.
 */
function startFailed(e: unknown): never {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  new Logger('ExampleApi').error(`could not start: ${typeof code === 'string' ? `${code}: ` : ''}${message}`, e instanceof Error ? e.stack : undefined);
  process.exit(1);
}

main().catch(startFailed);
