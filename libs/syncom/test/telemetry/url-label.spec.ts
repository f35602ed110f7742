import fc from 'fast-check';
import { urlLabel } from '../../src/telemetry';

/**
 * urlLabel, the peer attribute of every sync span and metric: credentials,
 * query and fragment go; anything without their delimiters ('@', '?', '#')
 * is its own label, url or not (a host's peer is a node id).
 */
describe('urlLabel', () => {
  it('strips user info, query and fragment from a url, and from a string no parser takes', () => {
    expect(urlLabel('https://ops:pw@hub.example:8443/sync?apikey=K#top')).toBe('https://hub.example:8443/sync');
    expect(urlLabel('memory://ops:pw-SECRET@h?apikey=KEY-SECRET')).toBe('memory://h');
    expect(urlLabel('no url//ops:p/w@host?k=v')).toBe('no url//host');
  });

  it('leaves a url without credentials, query or fragment, and a node id, as they are', () => {
    for (const peer of ['https://hub.example/sync', 'sim:3', 'memory://h', 'X8ePqV1f-3pQ2vB_0a9zYkT7mN4cR6sL1dW5hJ2uE0g']) expect(urlLabel(peer)).toBe(peer);
  });

  it('any string without "@", "?" or "#" is its own label, whether URL parses it or not', () => {
    const text = fc.string({ unit: fc.constantFrom('a', ':', '/', '.', '%', ' ', '\t', '\\', 'Z', '9', '-', '[', '\uff20') });
    fc.assert(
      fc.property(fc.constantFrom('', 'https://', 'sim:', 'memory://', 'http:\\\\'), text, (scheme, rest) => {
        expect(urlLabel(scheme + rest)).toBe(scheme + rest);
      }),
      { numRuns: 2_000, seed: 7 },
    );
  });
});
