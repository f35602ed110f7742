import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Subscription } from 'rxjs';
import { isSyncomError, type Storage } from 'syncom';
import { InjectStorage, loggedUrl, SyncomEvents } from 'syncom-nest';
import { PeerFlaps } from './peer-flaps';

/**
 * The hub's peers (SYNCOM_PEERS): at start the registry is made the configured
 * list (listed urls added, their token updated and re-enabled; others removed),
 * so each hub dials the others and a write at any hub reaches every hub.
 * A listed url that answers hello with this hub's own node id is this hub
 * itself (a hub cannot know its public url, so an operator may give every
 * hub the same full list): the engine's dialer stops at that answer
 * (SELF_DIAL), before any push or bootstrap, and it is disabled here until
 * the next start. A listed url may carry credentials (user info, an api key
 * in its query): every line names it by loggedUrl, without them.
 */
@Injectable()
export class HubPeers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Hub');
  private subscription?: Subscription;
  private readonly flaps = new PeerFlaps();

  constructor(
    @InjectStorage() private readonly storage: Storage,
    private readonly events: SyncomEvents,
    private readonly config: ConfigService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Subscribed before registering: a peer's first hello must not go unseen.
    this.subscription = this.events.peer$.subscribe((p) => this.onPeer(p.url, p.connected ? p.node : undefined));
    this.subscription.add(this.events.error$.subscribe((e) => {
      if (isSyncomError(e, 'SELF_DIAL') && e.url) void this.onSelf(e.url);
    }));
    await this.register();
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  /** Make the registry the configured peers. */
  private async register(): Promise<void> {
    const sync = this.storage.sync;
    const urls = new Set(this.config.get<string[]>('hub.peers') ?? []);
    const token = this.config.get<string>('hub.peerToken') ?? this.config.get<string[]>('hub.tokens')?.[0];
    for (const node of sync.listNodes()) {
      if (urls.has(node.url)) continue;
      await sync.removeNode(node.url);
      this.flaps.forget(node.url);
      this.logger.log(`peer ${loggedUrl(node.url)} is no longer in SYNCOM_PEERS: removed`);
    }
    for (const url of urls) {
      const known = sync.listNodes().find((n) => n.url === url);
      if (!known || known.token !== token) await sync.addNode({ url, ...(token !== undefined && { token }) });
      // A url once found to be this hub is tried again: the operator may have moved it since.
      if (known && !known.enabled) await sync.enableNode(url, true);
    }
    if (urls.size > 0) this.logger.log(`dialing ${urls.size} peer hub(s): ${[...urls].map(loggedUrl).join(', ')}`);
  }

  /** A dialed peer greeted (node: its id) or went away (undefined); a peer that flaps is sampled (PeerFlaps). */
  private onPeer(url: string, node: string | null | undefined): void {
    const label = loggedUrl(url);
    const line = node === undefined ? `peer hub ${label} disconnected` : `peer hub ${label} connected (node ${JSON.stringify(node)})`;
    for (const l of this.flaps.lines(url, label, node !== undefined, line)) this.logger.log(l);
  }

  /**
   * The engine's dialer found at hello that this url is this hub (SELF_DIAL) and
   * stopped before pushing, subscribing or bootstrapping; the registry keeps it disabled.
   */
  private async onSelf(url: string): Promise<void> {
    this.logger.warn(`peer ${loggedUrl(url)} is this hub itself (same node id): not dialing it until the next start`);
    await this.storage.sync.enableNode(url, false).catch((e: unknown) => this.logger.error(`disabling ${loggedUrl(url)} failed: ${String(e)}`));
  }
}
