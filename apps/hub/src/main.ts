import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createHub } from './create-hub';
import { hubConfigFromEnv } from './hub.config';

async function main(): Promise<void> {
  const app = await createHub(hubConfigFromEnv());
  new Logger('Hub').log(`listening on ${await app.getUrl()} (peers dial ${await app.getUrl()}/syncom)`);
}

main().catch((e) => {
  new Logger('Hub').error(e instanceof Error ? e.stack : String(e));
  process.exit(1);
});
