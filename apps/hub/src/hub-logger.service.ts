import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { SyncomEvents } from 'syncom-nest';

/** Log lines for what an operator watches: greetings, bootstraps, refusals, limits and errors. */
@Injectable()
export class HubLogger implements OnModuleInit {
  private readonly logger = new Logger('Hub');

  constructor(private readonly events: SyncomEvents) {}

  onModuleInit(): void {
    const l = this.logger;
    this.events.hello$.subscribe((h) => l.log(`peer ${h.node} greeted (scopes ${h.scopes.join(',')})`));
    this.events.bootstrap$.subscribe((b) => l.log(`bootstrapped ${b.records} records from ${b.url}`));
    this.events.refused$.subscribe((r) => l.warn(`refused ${r.count} op(s) from ${r.node}: ${r.reason}`));
    this.events.limited$.subscribe((r) => l.warn(`limited ${r.node}: ${r.reason}`));
    this.events.error$.subscribe((e) => l.error(`${e.code}: ${e.message}`));
  }
}
