/** The delimiters of the parts urlLabel strips: '@' ends user info, '?' starts a query, '#' a fragment. */
const HAS_PART = /[@?#]/;

/**
 * A url as a span attribute or a metric label carries it: scheme, host and
 * path, without user info, query or fragment, where a proxy's password or an
 * api key may ride. Metrics are scraped by whoever reaches the endpoint, so
 * a registered url's credentials must not reach them. A string that is no
 * url (a host's peer, which is a node id) loses only what would be query,
 * fragment or user info in one. The Nest layer's loggedUrl is this, for log
 * lines.
 */
export function urlLabel(url: string): string {
  // Parsed or not, a url without these delimiters has nothing to strip: it is its own label. Labels are made
  // per call and page, and a host's peer (a node id) is no url: URL's parser would throw on each.
  if (!HAS_PART.test(url)) return url;
  try {
    const u = new URL(url);
    if (!u.username && !u.password && !u.search && !u.hash) return url;
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    // User info first, up to the last '@' after '//': a password may hold a '/', '?' or '#' that no url parser took
    // (an '@' of the path or query takes the host with it: a label, never a leak).
    return url.replace(/\/\/[\s\S]*@/, '//').replace(/[?#][\s\S]*$/, '');
  }
}
