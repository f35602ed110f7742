import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { failedStartLine, loggedUrl } from 'syncom-nest';
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

/** A start that failed once the environment parsed: one line with the code, then the stack for a bug report. */
function startFailed(e: unknown): never {
  new Logger('ExampleApi').error(failedStartLine(e), e instanceof Error ? e.stack : undefined);
  process.exit(1);
}

main().catch(startFailed);
