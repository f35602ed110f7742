import { Logger } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostAllowed, SampledLog, shownHost as shown } from 'syncom-nest';
import type { HubConfig } from './hub.config';

/** hostAllowed (syncom-nest): whether a request's Host header names an IP address, localhost or an allowed name. */
export { hostAllowed };

/** An origin's host name, or undefined for one that does not parse (the gateway refuses such a config itself). */
function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The host names the hub answers for beyond IP addresses and localhost, or undefined when it answers for any:
 * SYNCOM_ALLOWED_HOSTS, the hosts of SYNCOM_ALLOWED_ORIGINS and HOST when it is a name. Unset, a hub with tokens
 * answers for any (a rebinding page cannot know a token); an open hub for those alone.
 */
export function allowedHosts(config: Pick<HubConfig, 'allowedHosts' | 'allowedOrigins' | 'tokens' | 'host'>): string[] | undefined {
  const listed = config.allowedHosts;
  if (listed === '*' || (listed === undefined && config.tokens.length > 0)) return undefined;
  const origins = Array.isArray(config.allowedOrigins) ? config.allowedOrigins : [];
  const bound = config.host && isIP(config.host) === 0 ? [config.host] : [];
  const names = [...(listed ?? []), ...origins.map(originHost), ...bound].filter((h): h is string => !!h).map((h) => h.toLowerCase().replace(/(?<=.)\.$/, ''));
  return [...new Set(names)];
}

/** The answer to a refused request: what to set, without echoing more of the Host header than its cut name. */
function refusal(header: string | undefined): string {
  return `403 Forbidden: this hub does not answer for the host name ${JSON.stringify(shown(header))} (DNS rebinding guard). `
    + 'Its operator may allow it with SYNCOM_ALLOWED_HOSTS (comma-separated names, .example.com for a domain and its subdomains).\n';
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;
type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * Puts the Host check in front of everything the HTTP server answers: express (the web app, /health, /metrics)
 * and engine.io (socket.io's handshakes, long-polling and WebSocket upgrades alike) listen on the same server,
 * so the check takes their listeners and calls them only for a request it lets through. Call it once the app is
 * initialised (engine.io attaches then) and before it listens. A refusal is a 403 with a line of plain text and
 * a warning, sampled: a page can send requests as fast as it likes.
 */
export function guardHosts(server: Server, allowed: readonly string[]): void {
  const log = new SampledLog(new Logger('Hub'));
  const refused = (req: IncomingMessage): boolean => {
    if (hostAllowed(req.headers.host, allowed)) return false;
    log.warn('host', `refused a request for host ${JSON.stringify(shown(req.headers.host))} from ${req.socket.remoteAddress}: not an IP address, localhost nor in SYNCOM_ALLOWED_HOSTS (a DNS-rebinding page?)`);
    return true;
  };
  const requests = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!refused(req)) return requests.forEach((l) => l.call(server, req, res));
    const body = refusal(req.headers.host);
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).end(body);
  });
  const upgrades = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!refused(req)) return upgrades.forEach((l) => l.call(server, req, socket, head));
    const body = refusal(req.headers.host);
    // Node takes its error listener off an upgraded socket: a client that resets it would throw otherwise.
    socket.on('error', () => socket.destroy());
    socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}
