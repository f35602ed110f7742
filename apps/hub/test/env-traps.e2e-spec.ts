import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hello } from 'syncom';
import type { SyncomSocketContext } from 'syncom-nest';
import { hubAuthorize } from '../src/hub-access';
import { HUB_VARIABLES, hubConfigFromEnv } from '../src/hub.config';
import { hubSummary, hubWarnings } from '../src/hub-summary';
import { RawClient } from './raw-client';
import { TestHubs } from './test-hubs';
import { refusedStart } from '../../../scripts/run-main';


const refused = (env: Record<string, string> & { SYNCOM_PATH: string }) => refusedStart('apps/hub/src/main.ts', { PORT: '0', ...env });

/** The message a config throws, or undefined when it parses. */
function refusal(env: Record<string, string>): string | undefined {
  try {
    hubConfigFromEnv(env);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

const hello = (token: string, scopes: string[]) => ({ node: 'n', vector: {}, epoch: 'e', schema: null, scopes, versions: [], caps: [], token }) as unknown as Hello;
const greeted = (token: string) => ({ socket: {}, session: { token } }) as unknown as SyncomSocketContext;

/** Values an operator sets that must mean what they look like, or stop the hub. */
describe('apps/hub: environment values that look set (e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-hub-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SYNCOM_TOKENS set but holding no token ("", " ", ",", newline) is refused HUB_CONFIG: the operator meant a closed hub', () => {
    for (const value of ['', ' ', ',', ' , ,', '\n']) {
      expect(refusal({ SYNCOM_TOKENS: value })).toBe('SYNCOM_TOKENS: is set but holds no token (unset it to run an open hub)');
    }
    expect(() => hubConfigFromEnv({ SYNCOM_TOKENS: ',' })).toThrow(expect.objectContaining({ code: 'HUB_CONFIG', variable: 'SYNCOM_TOKENS' }));
    // Unset is the open hub, as before.
    expect(hubConfigFromEnv({}).tokens).toEqual([]);
  });

  it('SYNCOM_TOKENS="," stops main.ts with one line and exit 1, before the data directory is made', async () => {
    const path = join(dir, 'never');
    expect(await refused({ SYNCOM_TOKENS: ',', SYNCOM_PATH: path })).toEqual({ code: 1, lines: ['hub: SYNCOM_TOKENS: is set but holds no token (unset it to run an open hub)'], made: false });
  }, 60_000);

  it('a SYNCOM_* variable the hub does not read is a warning at start naming the likely one (SYNCOM_TOKEN had started an open hub with only the generic warning)', () => {
    const config = hubConfigFromEnv({ SYNCOM_TOKEN: 't', SYNCOM_PEER: 'x', SYNCOM_TOKENS: 'a' });
    expect(hubWarnings(config)).toEqual(expect.arrayContaining([
      'SYNCOM_PEER is set but the hub reads no such variable (did you mean SYNCOM_PEERS?)',
      'SYNCOM_TOKEN is set but the hub reads no such variable (did you mean SYNCOM_TOKENS?)',
    ]));
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: 'a', PATH: '/bin' }).strayVariables).toBeUndefined();
    // The list is every variable the hub's sources name: one read but not listed would be warned about as stray.
    const src = join(__dirname, '../src');
    const named = new Set(readdirSync(src).filter((f) => f.endsWith('.ts')).flatMap((f) => readFileSync(join(src, f), 'utf8').match(/SYNCOM_[A-Z_]+[A-Z]/g) ?? []));
    expect([...named].filter((v) => !(HUB_VARIABLES as readonly string[]).includes(v))).toEqual([]);
  });

  it('a stray SYNCOM_TOKEN* variable with SYNCOM_TOKENS unset (SYNCOM_TOKENS_FILE, the Docker secrets habit) is refused HUB_CONFIG naming it: it had started an open hub, warned only', () => {
    const says = (name: string) => `${name}: is set but the hub reads no such variable, and SYNCOM_TOKENS is unset: the hub would start open to any peer. `
      + `Give the tokens in SYNCOM_TOKENS (from a secret file: SYNCOM_TOKENS="$(cat /run/secrets/tokens)"), or unset ${name} to run an open hub`;
    expect(() => hubConfigFromEnv({ SYNCOM_TOKENS_FILE: '/run/secrets/tokens' })).toThrow(expect.objectContaining({ code: 'HUB_CONFIG', variable: 'SYNCOM_TOKENS_FILE' }));
    expect(refusal({ SYNCOM_TOKENS_FILE: '/run/secrets/tokens' })).toBe(says('SYNCOM_TOKENS_FILE'));
    // A token in the singular is named, never shown.
    expect(refusal({ SYNCOM_TOKEN: 's3cret-token', SYNCOM_PEER: 'x' })).toBe(says('SYNCOM_TOKEN'));
    expect(refusal({ SYNCOM_TOKEN_FILE: '/run/secrets/t' })).toBe(says('SYNCOM_TOKEN_FILE'));
    // With SYNCOM_TOKENS set the stray one stays a warning; another stray variable beside an open hub too.
    expect(hubWarnings(hubConfigFromEnv({ SYNCOM_TOKENS_FILE: '/run/secrets/tokens', SYNCOM_TOKENS: 'k'.repeat(16) }))).toEqual(['SYNCOM_TOKENS_FILE is set but the hub reads no such variable']);
    expect(hubWarnings(hubConfigFromEnv({ SYNCOM_PEER: 'x' }))).toEqual([
      'SYNCOM_PEER is set but the hub reads no such variable (did you mean SYNCOM_PEERS?)',
      'SYNCOM_TOKENS is unset: any peer may sync with this hub',
    ]);
  });

  it('SYNCOM_TOKENS_FILE alone stops main.ts with one line and exit 1, before the data directory is made', async () => {
    const path = join(dir, 'never-open');
    const { lines, ...rest } = await refused({ SYNCOM_TOKENS_FILE: '/run/secrets/tokens', SYNCOM_PATH: path });
    expect(rest).toEqual({ code: 1, made: false });
    expect(lines).toEqual([expect.stringMatching(/^hub: SYNCOM_TOKENS_FILE: is set but the hub reads no such variable, and SYNCOM_TOKENS is unset/)]);
  }, 60_000);

  it('a token shorter than 16 characters is a warning at start naming its place in the list, never its text', () => {
    const long = 'k'.repeat(16);
    const warnings = hubWarnings(hubConfigFromEnv({ SYNCOM_TOKENS: `${long},dev-s3cret:Doc,${'q'.repeat(15)}` }));
    expect(warnings).toEqual([
      'SYNCOM_TOKENS item 2 is 10 characters long: a client trying tokens can guess one that short; use 32 random characters (openssl rand -hex 16)',
      'SYNCOM_TOKENS item 3 is 15 characters long: a client trying tokens can guess one that short; use 32 random characters (openssl rand -hex 16)',
    ]);
    expect(warnings.join('\n')).not.toContain('dev-s3cret');
    expect(hubWarnings(hubConfigFromEnv({ SYNCOM_TOKENS: long }))).toEqual([]);
  });

  it('SYNCOM_PEERS items that are no hub url, and a SYNCOM_REDIS_URL that is no redis url, are refused HUB_CONFIG before anything opens (the value of the redis url, which may hold a password, unshown)', () => {
    expect(refusal({ SYNCOM_PEERS: 'notaurl' })).toBe('SYNCOM_PEERS: item 1 is no hub url (http(s)://host:port/syncom)');
    expect(refusal({ SYNCOM_PEERS: 'http://a:8000/syncom, ftp://user:secret@b' })).toBe('SYNCOM_PEERS: item 2 is no hub url (http(s)://host:port/syncom)');
    expect(refusal({ SYNCOM_PEERS: 'http://a:8000/syncom,wss://b.example/syncom' })).toBeUndefined();
    expect(refusal({ SYNCOM_REDIS_URL: 'localhost:6379' })).toBe('SYNCOM_REDIS_URL: must be a redis:// or rediss:// url');
    expect(refusal({ SYNCOM_REDIS_URL: 'redis://:secret@127.0.0.1:6379' })).toBeUndefined();
    // What main.ts prints of it: the message, whole (a start refused by its config is one line and makes nothing,
    // as the SYNCOM_TOKENS="," start above shows for every such refusal).
    expect(refusal({ SYNCOM_REDIS_URL: 'http://:secret@x' })).toBe('SYNCOM_REDIS_URL: must be a redis:// or rediss:// url');
  });

  it('a SYNCOM_REDIS_URL whose path is no database number (or whose user info does not decode) is refused HUB_CONFIG before the data directory is made, not a stack trace once the storage opened', () => {
    for (const value of ['redis://:secret@127.0.0.1:6379/db0', 'redis://127.0.0.1:6379/0/1', 'redis://:%zz@127.0.0.1:6379']) {
      expect(refusal({ SYNCOM_REDIS_URL: value })).toBe('SYNCOM_REDIS_URL: its path must be empty or a database number (/0), its user info percent-encoded');
    }
    for (const value of ['redis://127.0.0.1:6379/', 'redis://127.0.0.1:6379/3', 'rediss://u:p%40ss@127.0.0.1']) expect(refusal({ SYNCOM_REDIS_URL: value })).toBeUndefined();
    // Refused by the config, which main.ts reads before it opens anything (the SYNCOM_TOKENS="," start above).
    expect(() => hubConfigFromEnv({ SYNCOM_REDIS_URL: 'redis://:secret@127.0.0.1:6379/db0' })).toThrow(expect.objectContaining({ code: 'HUB_CONFIG', variable: 'SYNCOM_REDIS_URL' }));
  });

  it('SYNCOM_PATH set but blank is refused HUB_CONFIG (open() refused it with a stack trace; a default in its place would start a new node elsewhere)', () => {
    for (const value of ['', '  ']) expect(refusal({ SYNCOM_PATH: value })).toBe('SYNCOM_PATH: is set but empty (unset it for ./data/hub)');
    expect(hubConfigFromEnv({}).path).toBe('./data/hub');
  });

  it('HOST set but blank is refused HUB_CONFIG (Node bound every address while the start said it listens on [::1]); HOST is trimmed', () => {
    for (const value of ['', '  ']) expect(refusal({ HOST: value })).toBe('HOST: is set but empty (unset it for 0.0.0.0, every address)');
    expect(() => hubConfigFromEnv({ HOST: '' })).toThrow(expect.objectContaining({ code: 'HUB_CONFIG', variable: 'HOST' }));
    // Kept whole, " 127.0.0.1" failed listen() with a getaddrinfo stack trace once the storage had opened.
    expect(hubConfigFromEnv({ HOST: ' 127.0.0.1 ' }).host).toBe('127.0.0.1');
    expect(hubConfigFromEnv({}).host).toBe('0.0.0.0');
  });

  it('SYNCOM_REDIS_TIMEOUT beyond what a Node timer holds (2147483647 ms) is refused: a timer past it fires at once, failing every Redis answer', () => {
    expect(refusal({ SYNCOM_REDIS_TIMEOUT: '2147483648' })).toBe('SYNCOM_REDIS_TIMEOUT="2147483648": expected a whole number from 100 to 2147483647');
    expect(hubConfigFromEnv({ SYNCOM_REDIS_TIMEOUT: '2147483647' }).redisTimeout).toBe(2147483647);
  });

  it('SYNCOM_MAX_INBOUND_BYTES empty or blank is the default bound, not 0 (off); 0 still turns it off', () => {
    for (const value of ['', '  ']) expect(hubConfigFromEnv({ SYNCOM_MAX_INBOUND_BYTES: value }).limits).not.toHaveProperty('inboundBytes');
    expect(hubConfigFromEnv({ SYNCOM_MAX_INBOUND_BYTES: '0' }).limits?.inboundBytes).toBe(0);
    expect(hubConfigFromEnv({ SYNCOM_MAX_INBOUND_BYTES: '1048576' }).limits?.inboundBytes).toBe(1048576);
    expect(refusal({ SYNCOM_MAX_INBOUND_BYTES: 'abc' })).toMatch(/^SYNCOM_MAX_INBOUND_BYTES="abc"/);
  });

  it('SYNCOM_METRICS and SYNCOM_LOAD_PROBE read as the other flags: 1/true on, 0/false/empty off, a typo refused', () => {
    for (const on of ['1', 'true', ' 1 ']) {
      expect(hubConfigFromEnv({ SYNCOM_METRICS: on }).metrics).toBe(true);
      expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: on }).loadProbe).toBe(true);
    }
    for (const off of ['0', 'false', '']) {
      expect(hubConfigFromEnv({ SYNCOM_METRICS: off }).metrics).toBe(false);
      expect(hubConfigFromEnv({ SYNCOM_LOAD_PROBE: off })).not.toHaveProperty('loadProbe');
    }
    for (const typo of ['yes', 'on', '2']) {
      expect(refusal({ SYNCOM_METRICS: typo })).toBe(`SYNCOM_METRICS=${JSON.stringify(typo)}: expected 1 or true, 0 or false`);
      expect(refusal({ SYNCOM_LOAD_PROBE: typo })).toBe(`SYNCOM_LOAD_PROBE=${JSON.stringify(typo)}: expected 1 or true, 0 or false`);
    }
  });

  it('SYNCOM_PEER_TOKEN is trimmed as the tokens are; blank is unset', () => {
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: 't', SYNCOM_PEER_TOKEN: ' t ' }).peerToken).toBe('t');
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: 't', SYNCOM_PEER_TOKEN: '  ' })).not.toHaveProperty('peerToken');
  });

  it('SYNCOM_TOKENS splits an item at its last ":": a token may hold ":" when its scopes follow (`a:b:*`), and the scopes are held to', () => {
    const c = hubConfigFromEnv({ SYNCOM_TOKENS: 'to:ken:*,pa:ss:Doc+Note,plain' });
    expect(c.tokens).toEqual(['to:ken', 'pa:ss', 'plain']);
    expect(c.tokenScopes).toEqual(new Map([['pa:ss', ['Doc', 'Note']]]));
    const authorize = hubAuthorize(c.tokens, c.tokenScopes);
    expect(authorize(greeted('to:ken'), hello('to:ken', ['*']))).toBe(true);
    expect(authorize(greeted('pa:ss'), hello('pa:ss', ['Doc']))).toBe(true);
    expect(authorize(greeted('pa:ss'), hello('pa:ss', ['Secret']))).toBe(false);
    // The pieces of a token holding ":" are no tokens.
    for (const piece of ['to', 'pa', 'ken', 'ss']) expect(authorize({ socket: {} } as unknown as SyncomSocketContext, { ...hello(piece, []), node: '', epoch: '' })).toBe(false);
  });

  it('a token named __proto__ (or constructor) keeps its scope binding, and counts as bound (exact scopes, the summary)', () => {
    const alone = hubConfigFromEnv({ SYNCOM_TOKENS: '__proto__:Doc' });
    expect(alone.tokenScopes).toEqual(new Map([['__proto__', ['Doc']]]));
    expect(hubSummary(alone, 'http://127.0.0.1:8000')[0]).toContain('tokens required (1, 1 bound to scopes)');
    const c = hubConfigFromEnv({ SYNCOM_TOKENS: '__proto__:Doc,constructor:Note' });
    expect(c.tokenScopes).toEqual(new Map([['__proto__', ['Doc']], ['constructor', ['Note']]]));
    const authorize = hubAuthorize(c.tokens, c.tokenScopes);
    expect(authorize(greeted('__proto__'), hello('__proto__', ['Doc']))).toBe(true);
    for (const scopes of [['Secret'], ['*']]) expect(authorize(greeted('__proto__'), hello('__proto__', scopes))).toBe(false);
    expect(authorize(greeted('constructor'), hello('constructor', ['Secret']))).toBe(false);
    // Given as a plain object (createHub's config), an own __proto__ key counts too.
    const own = JSON.parse('{"__proto__":["Doc"]}') as Record<string, string[]>;
    expect(hubAuthorize(['__proto__'], own)(greeted('__proto__'), hello('__proto__', ['Secret']))).toBe(false);
  });

  it('a hub started from SYNCOM_TOKENS="__proto__:Doc,full" holds the __proto__ token to Doc at hello (the Map reaches the gateway)', async () => {
    const hubs = new TestHubs();
    try {
      const c = hubConfigFromEnv({ SYNCOM_TOKENS: '__proto__:Doc,full' });
      const hub = await hubs.start('proto', { tokens: c.tokens, tokenScopes: c.tokenScopes, webDir: false });
      const bound = await RawClient.connect(hub.syncomUrl, '__proto__');
      expect(await bound.hello(['Secret'], '__proto__')).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
      expect(await bound.hello(['Doc'], '__proto__')).toMatchObject({ ok: true });
      bound.socket.close();
    } finally {
      await hubs.stopAll();
    }
  });

  it('the start names each token bound to scopes by its place in SYNCOM_TOKENS, never by its text, so a ":" read as a binding shows', () => {
    const c = hubConfigFromEnv({ SYNCOM_TOKENS: 'full,s3cr3t:pa55', SYNCOM_PATH: '/d' });
    const lines = hubSummary(c, 'http://127.0.0.1:8000');
    expect(lines[0]).toContain('tokens required (2, 1 bound to scopes)');
    expect(lines).toContain('SYNCOM_TOKENS item 2 may claim only the scopes "pa55"');
    expect(lines.join('\n')).not.toContain('s3cr3t');
  });
});
