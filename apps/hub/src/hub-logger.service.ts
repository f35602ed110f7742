import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Storage } from 'syncom';
import { InjectStorage, loggedMessage, loggedUrl, SampledLog, scrubbed, SyncomEvents } from 'syncom-nest';

/** A peer's words in a log line: JSON-quoted, so no newline or escape in them forges a line or colours one. */
const quoted = (x: unknown) => JSON.stringify(String(x));

/** `text` without the token of any registered peer (`<token>` in its place), as the engine's dialer logger writes it. */
export function peerScrubbed(storage: Storage, text: string): string {
  return scrubbed(text, storage.sync.listNodes().map((n) => n.token ?? ''));
}

/** The most of a peer's words a line quotes. */
const MAX_WORDS = 300;

/**
 * A peer's words as a line quotes them: without the tokens of the registered peers, then cut to MAX_WORDS. A
 * peer hub words its refusals as it likes, up to its frame's 16 MiB: each was a line of that size. Cut before
 * the scrub, a token across the cut would not be found; so the text is cut to MAX_WORDS and the longest token,
 * scrubbed, then cut again.
 */
function peerWords(storage: Storage, text: string): string {
  const longest = Math.max(0, ...storage.sync.listNodes().map((n) => n.token?.length ?? 0));
  return peerScrubbed(storage, text.slice(0, MAX_WORDS + longest)).slice(0, MAX_WORDS);
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
 * (its words are cut to 300 characters: peerWords).
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
      if (e.code !== 'SELF_DIAL') this.rarely.write('error', `error ${e.code}`, `${e.code}: ${quoted(peerWords(this.storage, loggedMessage(e)))}`);
    });
  }

  /** A clean stop says so (a crash leaves no such line): Nest runs this before SyncomModule closes the storage. */
  onApplicationShutdown(signal?: string): void {
    this.logger.log(`stopping${signal ? ` on ${signal}` : ''}: closing the storage (every write it acknowledged is in its log)`);
  }
}
