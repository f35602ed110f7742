import { Logger } from '@nestjs/common';
import { hideTokens, type Storage, type SyncEvents, type SyncomError, urlLabel } from 'syncom';
import type { ClientSocket } from 'syncom/socket.io';
import { thrownText } from '../thrown-text';

type Level = 'log' | 'warn' | 'error';

/** The most of a message from the far side written in one line. */
const MAX_MESSAGE = 300;

/** The url as logged: without user info, query or fragment, where a token may ride (the engine's urlLabel, as its metrics and spans write it). */
export const loggedUrl: (url: string) => string = urlLabel;

/**
 * An error's message as logged or served: the url it names written as
 * loggedUrl. The engine writes its own messages that way; an error made
 * elsewhere (an app's link, a hook) may still quote the url whole.
 */
export function loggedMessage(e: { message: string; url?: unknown }): string {
  const m = String(e.message);
  return typeof e.url === 'string' && e.url !== '' ? m.split(e.url).join(loggedUrl(e.url)) : m;
}

/**
 * A dialed peer's state (storage.sync.peers()) fit to serve: its url and its
 * last error's as loggedUrl, the error reduced to code, status, message and
 * url. Served whole, the error's url carried the credentials the peer's own
 * url had lost. The message is the far side's to word, and may quote the
 * token it was sent: pass `tokens` (the registered nodes') and each is
 * served as `<token>` (scrubbed); it is served cut to 300 characters
 * (farWords: a host's refusal may weigh a frame's 16 MiB).
 */
export function servedPeer<P extends { url: string; lastError: SyncomError | null }>(p: P, tokens: readonly string[] = []): Omit<P, 'lastError'> & { lastError: ServedError | null } {
  const e = p.lastError;
  const message = (x: SyncomError) => farWords(loggedMessage(x), tokens);
  return { ...p, url: loggedUrl(p.url), lastError: e && { code: e.code, ...(typeof e.status === 'number' && { status: e.status }), message: message(e), ...(typeof e.url === 'string' && { url: loggedUrl(e.url) }) } };
}

/** A peer's last error as servedPeer gives it. */
export interface ServedError {
  code: string;
  status?: number;
  message: string;
  url?: string;
}

/**
 * `text` fit for one log line: each token stands as `<token>` (a host's
 * message is the host's to word, and it holds the token), control characters
 * as spaces (a message may not forge a line of its own).
 */
export function scrubbed(text: string, tokens: readonly string[]): string {
  return hideTokens(text, tokens).replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

/** The far side's words as a line or an answer quotes them: without `tokens`, cut to 300 characters after they are hidden (hideTokens' `max`). */
export function farWords(text: string, tokens: readonly string[] = []): string {
  return scrubbed(hideTokens(text, tokens, MAX_MESSAGE), []);
}

/**
 * The line an app writes when its start failed once its environment parsed
 * (the path LOCKED by another process, a damaged store): the error's code and
 * its message, which says what to do. A stack alone left the operator to find
 * the code in Nest's dump of the error object above it.
 */
export function failedStartLine(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return `could not start: ${typeof code === 'string' ? `${code}: ` : ''}${e instanceof Error ? e.message : thrownText(e)}`;
}

/** What a socket.io connect_error tells: the server's refusal `data`, the transport's failure. */
type ConnectError = { message?: unknown; data?: { code?: unknown }; description?: { error?: { code?: unknown } } };

/**
 * What a Nest app's dialers meet, through a Nest Logger (context 'Syncom'):
 * sync errors (error), a hub the default connect cannot reach (warn), a hub
 * connected or lost (log). A url's last logged state is kept and a line is
 * written only when it changes: a hub down for an hour is one line, and the
 * same failure is logged again once the url connected, or its registration
 * changed, in between. Urls lose their query and user info, and tokens are
 * scrubbed from every line (SyncomModuleOptions.logSync turns it all off).
 */
export class SyncLogger {
  private readonly logger = new Logger('Syncom');
  /** The last state logged of each url ('' for errors about none): 'up', 'down', 'unreachable', 'refused', or `error:<code>`. */
  private readonly states = new Map<string, string>();
  private offs: (() => void)[] = [];
  private storage: Storage | undefined;
  private stopped = false;

  constructor(readonly enabled: boolean) {}

  /** Follows the storage's sync events; called as open() resolves, before anything came over the network. */
  watch(storage: Storage): void {
    if (!this.enabled) return;
    this.storage = storage;
    this.offs = [
      storage.sync.on('error', (e) => this.failed(e)),
      storage.sync.on('peer', (p) => this.peer(p)),
      // Added again (a new token), enabled or removed: whatever comes next is news.
      storage.sync.on('node', ({ url }) => void this.states.delete(url)),
    ];
    // Damage open() read past (a file it could not read): said once at start, whoever listens to error$ or not.
    for (const e of storage.startupErrors) this.logger.warn(`open() read past damage: ${e.code}: ${loggedMessage(e).slice(0, MAX_MESSAGE)}`);
  }

  /**
   * Follows a socket of the default `sync.connect` to `url`. A refusal with a
   * code (UNAUTHORIZED) reaches the dialer and comes back as a sync error; a
   * hub that does not answer, or that refuses without one, does not.
   */
  readonly socket = (node: { url: string; token?: string }, socket: ClientSocket): void => {
    if (!this.enabled) return;
    const { url, token = '' } = node;
    socket.on('connect_error', (error) => {
      const e = (error ?? {}) as ConnectError;
      if (typeof e.data?.code === 'string') return;
      const message = this.said(String(e.message ?? 'no answer'), token);
      if (!socket.active) return this.note(url, 'refused', 'error', `${loggedUrl(url)} refused the connection: ${message}`, token);
      const code = e.description?.error?.code;
      const why = typeof code === 'string' && /^E[A-Z]+$/.test(code) ? `${message} (${code})` : message;
      // As the link decides: without socket.io's reconnection nothing dials this url again.
      const retrying = socket.io.reconnection();
      const then = retrying ? 'retrying until it answers' : 'io.reconnection is off, nothing redials';
      this.note(url, 'unreachable', retrying ? 'warn' : 'error', `cannot reach ${loggedUrl(url)}: ${why}; ${then}`, token);
    });
  };

  /** Stops logging (the module calls it before it closes the storage: a shutdown is no lost hub). */
  stop(): void {
    this.stopped = true;
    for (const off of this.offs) off();
    this.offs = [];
  }

  private failed(e: SyncomError): void {
    const code = e.remoteCode ? `${e.code} (${String(e.remoteCode)})` : e.code;
    const status = typeof e.status === 'number' ? ` ${e.status}` : '';
    const about = e.url ? `sync with ${loggedUrl(e.url)}` : 'sync';
    // A url that is this node itself is a setting to correct, not a failure: hubs given one SYNCOM_PEERS list each dial themselves.
    const level: Level = e.code === 'SELF_DIAL' ? 'warn' : 'error';
    this.note(e.url ?? '', `error:${e.code}`, level, `${about}: ${code}${status}: ${this.said(loggedMessage(e))}`);
  }

  private peer(p: SyncEvents['peer'][0]): void {
    if (p.connected) this.note(p.url, 'up', 'log', `connected to ${loggedUrl(p.url)} (node ${p.node})`);
    else this.note(p.url, 'down', 'log', `disconnected from ${loggedUrl(p.url)}`);
  }

  /** Logs `text`, without `token` nor any registered node's, unless `state` is what was last logged of `url`. */
  private note(url: string, state: string, level: Level, text: string, token = ''): void {
    if (this.stopped || this.states.get(url) === state) return;
    this.states.set(url, state);
    this.logger[level](scrubbed(text, [token, ...this.tokens()]));
  }

  /**
   * The far side's words as a line quotes them: scrubbed of `token` and every registered node's, then cut to
   * MAX_MESSAGE. Cut first, a token the cut ended inside was no longer found, and all but its end was logged.
   */
  private said(text: string, token = ''): string {
    return farWords(text, [token, ...this.tokens()]);
  }

  private tokens(): string[] {
    return (this.storage?.sync.listNodes() ?? []).map((n) => n.token ?? '');
  }
}
