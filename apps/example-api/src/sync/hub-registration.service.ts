import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Storage } from 'syncom';
import { InjectStorage, loggedMessage, loggedUrl, SyncomEvents } from 'syncom-nest';
import { EXAMPLE_CONFIG } from '../example.constants';
import type { ExampleConfig } from '../example.config';

/** Registers the configured hub once (kept in <path>/remote/), and logs the sync events an operator watches (urls without their credentials). */
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
    this.events.error$.subscribe((e) => l.warn(`${e.code}: ${loggedMessage(e)}`));
    const { hub: url, token } = this.config;
    if (!url) return;
    const known = this.storage.sync.listNodes().find((n) => n.url === url);
    if (!known || known.token !== token) await this.storage.sync.addNode({ url, token });
  }
}
