import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Storage } from 'syncom';
import { InjectStorage, loggedMessage, loggedUrl, scrubbed, SyncomEvents } from 'syncom-nest';
import { EXAMPLE_CONFIG } from '../example.constants';
import type { ExampleConfig } from '../example.config';

/**
 * Registers the configured hub once (kept in <path>/remote/), disables any other hub an earlier run registered,
 * then starts sync; logs the sync events an operator watches (urls without their credentials). A hub words
 * its refusals as it likes and may quote the token it was sent: an error's message is logged with each
 * registered token as `<token>` and control characters as spaces (scrubbed), as the hub logs its own peers'.
 */
@Injectable()
export class HubRegistration implements OnApplicationBootstrap {
  private readonly logger = new Logger('Sync');

  constructor(
    @InjectStorage() private readonly storage: Storage,
    private readonly events: SyncomEvents,
    @Inject(EXAMPLE_CONFIG) private readonly config: ExampleConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const l = this.logger;
    this.events.peer$.subscribe((p) => l.log(`${p.connected ? 'connected to' : 'disconnected from'} ${loggedUrl(p.url)}`));
    this.events.progress$.subscribe((p) => l.log(`bootstrapping from ${loggedUrl(p.url)}: ${p.received}${p.total === undefined ? '' : ` of ${p.total}`} records`));
    this.events.bootstrap$.subscribe((b) => l.log(`bootstrapped ${b.records} records from ${loggedUrl(b.url)}`));
    const tokens = () => [this.config.token ?? '', ...this.storage.sync.listNodes().map((n) => n.token ?? '')];
    this.events.error$.subscribe((e) => l.warn(`${e.code}: ${scrubbed(loggedMessage(e), tokens())}`));
    const { hub: url, token } = this.config;
    const sync = this.storage.sync;
    // SYNCOM_HUB names the one hub this node dials. The registry outlives the run: a hub registered before SYNCOM_HUB
    // was unset or changed had been dialed on, a "local only" node still syncing, a node moved to another hub joining
    // both. Disabled, not removed: its cursor stays (set it again and it resumes) and retention lets go of its ops.
    for (const n of sync.listNodes()) if (n.url !== url && n.enabled) await sync.enableNode(n.url, false);
    if (url) {
      const known = sync.listNodes().find((n) => n.url === url);
      if (!known || known.token !== token) await sync.addNode({ url, token });
      if (known && !known.enabled) await sync.enableNode(url, true);
    }
    // The module opens the storage with autoStart off (AppModule): nothing is dialed before the registry is as configured.
    await sync.start();
  }
}
