import { ioError, isSyncomError, SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import { INDEX_FILE, LOG_DIR, OPEN_DIR } from '../log/files';
import { platform, type PemKeyPair, type PlatformKey } from '../platform';
import { RECORDS_DIR } from './records';

/** The node's keys, parsed once (parsing a PEM per call is ten times slower): KeyObjects in Node, CryptoKeys in the browser. */
export interface NodeKeys {
  id: string;
  signPrivate: PlatformKey;
  signPublic: PlatformKey;
  sealPublic: PlatformKey;
  sealPrivate: PlatformKey;
}

export const KEYS_DIR = 'keys';
/** The registry's folder (sync's, named here: keys are read before sync exists). */
const REMOTE_DIR = 'remote';

/** Keys parsed at recent opens, by platform, kind and the SHA-256 of their PEM text; the oldest dropped past this many. */
const PARSED_LIMIT = 16;
const parsed = new Map<string, Promise<PlatformKey>>();

type Kind = 'sign-public' | 'sign-private' | 'seal-public' | 'seal-private';

/**
 * A PEM parsed once per process: OpenSSL's decoders take 0.1-0.8 ms a key
 * (an RSA private key the most), which a storage reopened (a restart in
 * place, a test's or simulator's reboot, one process opening many storages
 * that share a sealing pair) would pay again. Parsed keys are immutable, so
 * storages may share one.
 */
function parse(pem: string, kind: Kind): Promise<PlatformKey> {
  const p = platform();
  const id = `${p.name}:${kind}:${p.sha256(pem)}`;
  let key = parsed.get(id);
  if (!key) {
    key = load(pem, kind);
    parsed.set(id, key);
    // A text that failed to parse is not kept: the next open reads the file again.
    key.catch(() => parsed.get(id) === key && parsed.delete(id));
    if (parsed.size > PARSED_LIMIT) parsed.delete(parsed.keys().next().value as string);
  }
  return key;
}

function load(pem: string, kind: Kind): Promise<PlatformKey> {
  const p = platform();
  const sync = p.ed25519.sync;
  // Node parses synchronously (as before the seam); the promise is only the common shape.
  if (kind === 'sign-public') return sync ? Promise.resolve().then(() => sync.importPublic(pem)) : p.ed25519.importPublic(pem);
  if (kind === 'sign-private') return sync ? Promise.resolve().then(() => sync.importPrivate(pem)) : p.ed25519.importPrivate(pem);
  return p.importSealingKey(pem, kind === 'seal-public' ? 'public' : 'private');
}

type Name = 'sign' | 'seal';

/** A pair's kind: how to make one, and the SPKI PEM of a key's public half (of a public or a private key; undefined where the platform cannot tell). */
interface PairKind {
  name: Name;
  make(): Promise<PemKeyPair>;
  publicOf(key: PlatformKey): Promise<string | undefined>;
}

/** What an operator can do about a damaged pair. */
const REMEDY: Record<Name, string> = {
  sign: 'restore keys/ from a backup, or move log/ and records/ away to start as a new node',
  seal: "restore keys/ from a backup (sealed records need it), or copy a new empty store's keys/seal-*.pem here to give them up",
};

function damaged(file: string, what: string, cause?: unknown): SyncomError {
  return new SyncomError('STORE_DAMAGED', `${file} ${what}`, { file, cause });
}

/** A key file that does not parse, or holds a key of another kind, is damage to the store, not a caller's bad argument. */
function asDamage<T>(work: Promise<T>, file: string, remedy: string): Promise<T> {
  return work.catch((cause: unknown) => {
    throw isSyncomError(cause) && cause.code !== 'INVALID_ARGUMENT' ? cause : damaged(file, `cannot be read as a key: ${remedy}`, cause);
  });
}

/**
 * Whether a key file's text parses as a key of its kind: false for a torn or
 * foreign file (damage), true when it parses or fails for another reason
 * than its text (no Ed25519 in this Web Crypto: UNSUPPORTED, left to the
 * caller's own parse).
 */
async function parses(pem: string, kind: Kind): Promise<boolean> {
  try {
    await parse(pem, kind);
    return true;
  } catch (cause) {
    return isSyncomError(cause) && cause.code !== 'INVALID_ARGUMENT';
  }
}

/**
 * Public halves worked out already, by parsed key: parsed keys are shared by
 * the opens of one process (see parse), and an RSA key's half costs about
 * 0.1 ms, which every reopen would pay again.
 */
const halves = new WeakMap<PlatformKey, Promise<string | undefined>>();

function halfOf(kind: PairKind, key: PlatformKey): Promise<string | undefined> {
  let half = halves.get(key);
  if (!half) {
    const made = (half = kind.publicOf(key));
    halves.set(key, made);
    // A failure is not kept: the next open works it out again.
    made.catch(() => halves.get(key) === made && halves.delete(key));
  }
  return half;
}

/**
 * Whether the store already holds a log or records. Both pairs are written
 * before the log at the first open, so a pair missing beside them was lost,
 * not never made: a new one would be a new node id beside the old records
 * (or a seal key that opens none of the sealed ones).
 */
async function holdsLog(backend: Backend): Promise<boolean> {
  if (await backend.exists(INDEX_FILE)) return true;
  const names = await Promise.all([LOG_DIR, OPEN_DIR, RECORDS_DIR].map((dir) => backend.list(dir)));
  return names.some((n) => n.length > 0);
}

/**
 * Whether a node was registered here (a file under remote/): a first open
 * completed, so a key file that does not parse now was damaged after, and
 * a new pair would be a new node id to that node.
 */
async function registered(backend: Backend): Promise<boolean> {
  return (await backend.list(REMOTE_DIR)).length > 0;
}

/**
 * One pair. It is made only when both files are absent in a store with no
 * log; a lost public half is made again from the private one; no file is
 * ever written over. The halves are checked against each other at every
 * open: a public file of another store would otherwise name another node
 * (or seal new records for another key).
 */
async function pair(backend: Backend, kind: PairKind) {
  const { name, make } = kind;
  // A key written before anything is open: its OS error (a read-only store, a full disk) is IO_ERROR naming the file.
  const write = (path: string, pem: string) => backend.write(path, pem, { durable: true }).catch((e: unknown) => { throw ioError(path, e); });
  const pubPath = `${KEYS_DIR}/${name}-public.pem`;
  const privPath = `${KEYS_DIR}/${name}-private.pem`;
  let [pub, priv] = await Promise.all([backend.read(pubPath), backend.read(privPath)]);
  // Whether the store holds a log or records yet: asked once, where a half is missing or does not parse.
  let logged: Promise<boolean> | undefined;
  const hasLog = () => (logged ??= holdsLog(backend));
  // A private half that does not parse in a store with no log yet: the first open was cut while it wrote the
  // pair (where a write is not atomic: OPFS at a power cut). No op was signed and no id given out with it, so
  // the pair is made again; beside a log it stays damage (a new key would be a new node over the old records).
  if (priv !== undefined && !(await parses(priv, `${name}-private`)) && !(await hasLog()) && !(await registered(backend))) {
    [pub, priv] = [undefined, undefined];
  }
  if (pub === undefined && priv === undefined) {
    if (await hasLog()) throw damaged(privPath, `and ${pubPath} are missing beside the store's log: ${REMEDY[name]}`);
    const made = await make();
    // The private key first: a crash between the two leaves a public half made again from it.
    await write(privPath, made.privatePem);
    await write(pubPath, made.publicPem);
    ({ publicPem: pub, privatePem: priv } = made);
  }
  if (priv === undefined) throw damaged(privPath, `is missing: ${REMEDY[name]}`);
  const privKey = await asDamage(parse(priv, `${name}-private`), privPath, REMEDY[name]);
  const half = await asDamage(halfOf(kind, privKey), privPath, REMEDY[name]);
  if (pub === undefined) {
    if (half === undefined) throw damaged(pubPath, `is missing: ${REMEDY[name]}`);
    await write(pubPath, (pub = half));
  }
  // A public half that does not parse in a store with no log yet is made again from the private one, as a missing
  // one is (the first open cut while it wrote it); beside a log it is refused, and the message says how to mend it.
  if (half !== undefined && !(await parses(pub, `${name}-public`)) && !(await hasLog())) await write(pubPath, (pub = half));
  const pubKey = await asDamage(parse(pub, `${name}-public`), pubPath, `remove it, and open() makes it again from ${privPath}`);
  if ((await asDamage(halfOf(kind, pubKey), pubPath, REMEDY[name])) !== half) throw damaged(pubPath, `does not match ${privPath}: ${REMEDY[name]}`);
  return { pub: pubKey, priv: privKey };
}

/** The SPKI PEM of an Ed25519 public key from its raw bytes, the node id: a fixed 12-byte prefix (RFC 8410), then the key. */
const signPublicPem = (id: string) => `-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA${id.replace(/-/g, '+').replace(/_/g, '/')}=\n-----END PUBLIC KEY-----\n`;

/**
 * Load the node's key pairs from <path>/keys/, making them at the first open
 * (SIG-4): Ed25519 sign-public.pem / sign-private.pem, and the RSA pair that
 * seals records, seal-public.pem / seal-private.pem. The files are the same
 * on every platform (PEM: SPKI public, PKCS#8 private), so a store written
 * by Node opens in the browser and the reverse. The node id is the private
 * key's public half. The sealing pair's halves are compared where the
 * platform seals (Node).
 *
 * @throws SyncomError STORE_DAMAGED (naming the file) for a pair that lost its
 * private half, or lost both beside a log; a key file that does not parse; a
 * public half that does not match its private one.
 */
export async function loadKeys(backend: Backend): Promise<NodeKeys> {
  await backend.mkdir(KEYS_DIR);
  const p = platform();
  // Both settle before either's refusal is thrown: open() releases the lock then, and no key write may land after it.
  const pairs = await Promise.allSettled([
    pair(backend, { name: 'sign', make: () => p.ed25519.generate(), publicOf: async (key) => signPublicPem(await p.ed25519.idOf(key)) }),
    pair(backend, { name: 'seal', make: () => p.generateSealingKeys(), publicOf: async (key) => p.sealingPublicPem?.(key) }),
  ]);
  const [sign, seal] = pairs.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  });
  return { id: await p.ed25519.idOf(sign.priv), signPrivate: sign.priv, signPublic: sign.pub, sealPublic: seal.pub, sealPrivate: seal.priv };
}
