import { Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { allowedHostName, hostAllowed, SampledLog, shownHost } from 'syncom-nest';
import type { ExampleConfig } from './example.config';

/**
 * The host names the app answers for beyond IP addresses and localhost, or undefined when it answers for any
 * (ALLOWED_HOSTS=*): those of ALLOWED_HOSTS, and HOST when it is a name.
 */
export function allowedHostsOf(config: Pick<ExampleConfig, 'allowedHosts' | 'host'>): string[] | undefined {
  if (config.allowedHosts === '*') return undefined;
  const bound = config.host && isIP(config.host) === 0 ? allowedHostName(config.host) : undefined;
  return [...new Set([...(config.allowedHosts ?? []), ...(bound ? [bound] : [])])];
}

/**
 * An express middleware that answers 403, one line in the shape of Nest's error answers, to a request whose Host
 * is a DNS name other than localhost, *.localhost, HOST or those of ALLOWED_HOSTS (IP literals pass). A
 * DNS-rebinding page (evil.example, resolved to this app's address) is same-origin with the app in the browser's
 * eyes, so jsonOnlyWrites lets its writes through and it reads every answer: its requests carry its own name.
 * `allowed` undefined: every Host passes. A refusal is also a warning, sampled: a page can send as fast as it likes.
 */
export function hostCheck(allowed: readonly string[] | undefined): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const log = new SampledLog(new Logger('ExampleApi'));
  return (req, res, next) => {
    if (allowed === undefined || hostAllowed(req.headers.host, allowed)) return next();
    const name = shownHost(req.headers.host);
    log.warn('host', `refused a request for host ${JSON.stringify(name)} from ${req.socket.remoteAddress}: not an IP address, localhost, HOST nor in ALLOWED_HOSTS (a DNS-rebinding page?)`);
    const body = JSON.stringify({ statusCode: 403, error: 'Forbidden', message: `this app does not answer for the host name ${JSON.stringify(name)}: list it in ALLOWED_HOSTS` });
    res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }).end(body);
  };
}
