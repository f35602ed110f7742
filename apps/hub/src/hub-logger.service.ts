import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Storage } from 'syncom';
import { farWords, InjectStorage, loggedMessage, loggedUrl, SampledLog, SyncomEvents } from 'syncom-nest';

/** A peer's words in a log line: JSON-quoted, so no newline or escape in them forges a line or colours one. */
const quoted = (x: unknown) => JSON.stringify(String(x));

/** The tokens this hub presents to the peers it dials. */
export function peerTokens(storage: Storage): string[] {
  return storage.sync.listNodes().map((n) => n.token ?? '');
}

/** A hello's scopes as a line shows them: how many, and the first three. */
function scopesOf(scopes: readonly string[]): string {
  const shown = scopes.slice(0, 3).map(quoted).join(', ');
  return scopes.length > 3 ? `${scopes.length} scopes: ${shown}, ...` : `scopes ${shown}`;
}

/**
 * Log lines for what an operator watches: greetings, bootstraps, refusals,
 * limits and errors. Each kind is written at most once a second (greetings)
 * or every 10 s (the rest), with a count of those left out: a peer can
 * provoke them as fast as it sends (a hello naming 1,024 scopes, again and
 * again, wrote 274 MB of log in 8 s), and a peer's words are quoted. A
 * dialed url is written without its user info and query (loggedUrl), and a
 * sync error's message without the tokens this hub presents to its peers: a
 * peer hub words its refusals as it likes, and may quote the token it was sent
 * (its words are cut to 300 characters: farWords).
 */
@Injectable()
export class HubLogger implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Hub');
  private readonly often = new SampledLog(this.logger, 1_000);
  private readonly rarely = new SampledLog(this.logger);

  constructor(private readonly events: SyncomEvents, @InjectStorage() private readonly storage: Storage) {}

  onModuleInit(): void {
    this.events.hello$.subscribe((h) => this.often.write('log', 'hello', `peer ${quoted(h.node)} greeted (${scopesOf(h.scopes)})`));
    this.events.bootstrap$.subscribe((b) => this.logger.log(`bootstrapped ${b.records} records from ${loggedUrl(b.url)}`));
    this.events.refused$.subscribe((r) => this.rarely.write('warn', `refused ${r.reason}`, `refused ${r.count} op(s) from ${quoted(r.node)}: ${r.reason}`));
    this.events.limited$.subscribe((r) => this.rarely.write('warn', `limited ${r.reason}`, `limited ${quoted(r.node)}: ${r.reason}`));
    // SELF_DIAL is the documented full SYNCOM_PEERS list on every hub: HubPeersService warns and disables the url.
    this.events.error$.subscribe((e) => {
      if (e.code !== 'SELF_DIAL') this.rarely.write('error', `error ${e.code}`, `${e.code}: ${quoted(farWords(loggedMessage(e), peerTokens(this.storage)))}`);
    });
  }

  /** A clean stop says so (a crash leaves no such line): Nest runs this before SyncomModule closes the storage. */
  onApplicationShutdown(signal?: string): void {
    this.logger.log(`stopping${signal ? ` on ${signal}` : ''}: closing the storage (every write it acknowledged is in its log)`);
  }
}
