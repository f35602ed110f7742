import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createExampleApi } from './create-example-api';
import { exampleConfigFromEnv } from './example.config';

async function main(): Promise<void> {
  const config = exampleConfigFromEnv();
  const app = await createExampleApi(config);
  new Logger('ExampleApi').log(`listening on ${await app.getUrl()}${config.hub ? `, syncing with ${config.hub}` : ', local only'}`);
}

main().catch((e) => {
  new Logger('ExampleApi').error(e instanceof Error ? e.stack : String(e));
  process.exit(1);
});
