import { Logger } from '@nestjs/common';
import { farWords, loggedUrl, scrubbed, type SocketWatch } from 'syncom-nest';

/** What a socket.io connect_error carries: a host's refusal `data`, the transport's failure `description`. */
type ConnectError = { message?: unknown; data?: { code?: unknown }; description?: { error?: { code?: unknown } } };

/**
 * Says when a peer hub (SYNCOM_PEERS) cannot be reached: the engine's dialer
 * reports an unreached host only in peers()' lastError, so a hub whose peer
 * was down at start, or went away, logged nothing past "dialing". One warning
 * a failure streak per url (socket.io retries every few seconds, each attempt
 * a connect_error), naming it by loggedUrl and the error code, its token
 * scrubbed; the streak ends when a socket to it connects (HubPeers logs the
 * greeting). A refusal with a code (UNAUTHORIZED) reaches the dialer and is
 * logged as a sync error.
 */
export class HubPeerReach {
  private readonly logger = new Logger('Hub');
  /** Urls whose failure streak was logged. */
  private readonly failing = new Set<string>();

  /** SyncomModule's socket watch: told of every socket the hub's dialers open. */
  readonly watch: SocketWatch = (node, socket) => {
    const { url, token = '' } = node;
    socket.on('connect', () => void this.failing.delete(url));
    socket.on('connect_error', (error) => {
      const e = (error ?? {}) as ConnectError;
      if (typeof e.data?.code === 'string' || this.failing.has(url)) return;
      this.failing.add(url);
      const transport = e.description?.error?.code;
      const code = typeof transport === 'string' && /^E[A-Z]+$/.test(transport) ? transport : 'LINK_DOWN';
      // Scrubbed before the cut (farWords): a token the cut ends inside is no longer found, and its first characters were logged.
      const message = farWords(String(e.message ?? 'no answer'), [token]);
      this.logger.warn(scrubbed(`peer hub ${loggedUrl(url)} unreachable: ${code} (${message}); retrying until it answers`, [token]));
    });
  };
}
