import { isIP } from 'node:net';

/**
 * The host name a Host header names (`[::1]` for an IPv6 address, lower case, a trailing dot dropped), or
 * undefined when it is no host[:port]. A browser always sends a well-formed one, so a malformed one is refused.
 */
export function hostNameOf(header: string): string | undefined {
  const host = header.trim().toLowerCase();
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.includes(':') ? host.indexOf(':') : host.length;
  if (end <= 0 || !/^(:\d*)?$/.test(host.slice(end))) return undefined;
  const name = host.slice(0, end);
  return name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * Whether a request whose Host header is `header` may be answered, given the names `allowed` (a name, or
 * `.domain` for it and its subdomains; lower case, as allowedHostName gives them). A DNS-rebinding page reaches
 * a server under a name of the attacker's, which then resolves to the server's address: its requests carry that
 * name. IP addresses are always taken (no one can rebind them), and so are `localhost` and `*.localhost`, which
 * browsers resolve to loopback themselves. A request without Host (HTTP/1.0) is no browser's and passes.
 */
export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (header === undefined) return true;
  const name = hostNameOf(header);
  if (name === undefined || name === '') return false;
  if (name.startsWith('[')) return isIP(name.slice(1, -1)) === 6;
  if (isIP(name) === 4 || name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowed.some((entry) => (entry.startsWith('.') ? name === entry.slice(1) || name.endsWith(entry) : name === entry));
}

/** A host name, or a domain with a leading dot (`.example.com`: it and its subdomains); lower case, no port. */
const HOST_NAME = /^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/**
 * An entry of an allowed-hosts list as hostAllowed takes it (lower case, a trailing dot dropped), or undefined
 * when it is no host name nor `.domain` (a port, a scheme, `*.x`).
 */
export function allowedHostName(entry: string): string | undefined {
  const host = entry.trim().toLowerCase().replace(/(?<=.)\.$/, '');
  return HOST_NAME.test(host) ? host : undefined;
}

/** The host name of a refused request, as an answer or a log may show it: only host-name characters, cut short. */
export function shownHost(header: string | undefined): string {
  return (hostNameOf(header ?? '') ?? '').replace(/[^a-z0-9._[\]:-]/g, '?').slice(0, 64);
}
