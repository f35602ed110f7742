/**
 * The platform seam: everything the engine needs from its host that Node and
 * a browser provide differently (hashing, randomness, a macrotask yield,
 * Ed25519). The engine core reaches these only through `platform()`; each
 * entry (`syncom`, `syncom/browser`) installs its implementation first.
 */

/** A parsed key: a KeyObject in Node, a CryptoKey (or a raw public key) in the browser. Opaque to the engine. */
export type PlatformKey = object;

/** A key pair as the PEM texts of keys/*.pem: public SPKI, private PKCS#8 (the same files on every platform). */
export interface PemKeyPair {
  publicPem: string;
  privatePem: string;
}

/** Something that gets a `sig`: an op of this node waiting for its signature. */
export interface SigTarget {
  sig?: string;
}

/** One signature to check: the key (from publicKey), the signed text, and the 64 signature bytes. */
export interface VerifyItem {
  key: PlatformKey;
  data: string;
  sig: Uint8Array;
}

/** Ed25519 as the engine uses it (Signatures). */
export interface Ed25519 {
  /** A new pair, in the keys file format. */
  generate(): Promise<PemKeyPair>;
  /** Parse a PKCS#8 private key PEM. @throws SyncomError INVALID_ARGUMENT when it is no Ed25519 private key. */
  importPrivate(pem: string): Promise<PlatformKey>;
  /** Parse an SPKI public key PEM. @throws SyncomError INVALID_ARGUMENT when it is no Ed25519 public key. */
  importPublic(pem: string): Promise<PlatformKey>;
  /** The node id (raw public key, base64url) of a public or private key. */
  idOf(key: PlatformKey): Promise<string>;
  /**
   * The key of a node id already checked as canonical and not weak (op/keys.ts),
   * or null when the platform refuses it. Synchronous: the browser's is the raw
   * bytes, imported into Web Crypto at the first verification.
   */
  publicKey(nodeId: string, raw: Uint8Array): PlatformKey | null;
  /** Sign a text (UTF-8) with a private key: base64url signature. */
  sign(key: PlatformKey, text: string): Promise<string>;
  /** Sign one of this node's ops off the main thread where the platform can; resolves once target.sig is set. */
  signInto(target: SigTarget, text: string, key: PlatformKey): Promise<void>;
  /** Check one signature; never rejects (false for anything that does not check). */
  verify(item: VerifyItem): Promise<boolean>;
  /**
   * Check signatures in order, at most `concurrency` (default 64) in flight
   * (SIG-27, SIG-28): one answer per item.
   */
  verifyBatch(items: readonly VerifyItem[], concurrency?: number): Promise<boolean[]>;
  /** Synchronous forms, where the platform has them (Node): the public signOp, the CLI's key reads. */
  sync?: {
    generate(): PemKeyPair;
    importPrivate(pem: string): PlatformKey;
    importPublic(pem: string): PlatformKey;
    idOf(key: PlatformKey): string;
    sign(key: PlatformKey, text: string): string;
  };
}

/** What open() needs that only some platforms have: a file backend by path, encryption at rest. */
export interface PlatformExtras {
  /** The backend open() uses when it is given a path and no backend (Node: the fs backend). */
  fileBackend?: (path: string) => import('../backend/types').Backend;
  /** Sealed records (GUAR-19), where the platform has them (Node). */
  sealing?: Sealing;
  /** A new RSA-2048 sealing pair (keys/seal-*.pem). */
  generateSealingKeys(): Promise<PemKeyPair>;
  /** Parse a sealing key PEM (public SPKI or private PKCS#8); the browser keeps the text. */
  importSealingKey(pem: string, kind: 'public' | 'private'): Promise<PlatformKey>;
  /**
   * The SPKI PEM of a parsed sealing key's public half (a private key's
   * derived), where the platform seals (Node): open() makes a lost
   * seal-public.pem again from it and checks that the pair's halves match.
   * @throws SyncomError INVALID_ARGUMENT for a key that is no RSA key.
   */
  sealingPublicPem?(key: PlatformKey): string;
  /** Attach a changes page's JSON bytes for the gateway's transport (sync/host/page-bytes.ts; Node's only). */
  encodePage?(page: { prev: string }, texts: import('../sync/host/page-text').OpTexts, at: readonly number[]): void;
}

/** Encryption at rest: the log's and the record files' ciphers over the node's sealing pair. */
export interface Sealing {
  createLogCipher(keys: SealingKeys): import('../log/files').EntryCipher;
  createRecordCipher(keys: SealingKeys, isSealed: (id: string) => boolean): import('../storage/records').RecordCipher;
}

/** The node's sealing pair, as the platform parsed it. */
export interface SealingKeys {
  sealPublic: PlatformKey;
  sealPrivate: PlatformKey;
}

/** The platform: Node's (platform/node.ts) or the browser's (platform/web.ts). */
export interface Platform extends PlatformExtras {
  readonly name: 'node' | 'web';
  /** SHA-256 of a text's UTF-8 bytes, base64url (the op digest's hot path). */
  sha256(text: string): string;
  /** SHA-256 of texts one after another (UTF-8), base64url: no joined copy of a large text. */
  sha256Parts(parts: readonly string[]): string;
  /** SHA-256 of a text's UTF-8 bytes, lowercase hex. */
  sha256Hex(text: string): string;
  /** SHA-256 of bytes. */
  sha256Bytes(data: Uint8Array): Uint8Array;
  /** SHA-256 of a text's UTF-16 code units, little-endian (a reconcile item's hash: lone surrogates kept apart). */
  sha256Utf16(text: string): Uint8Array;
  /** Cryptographically strong random bytes. */
  randomBytes(n: number): Uint8Array;
  /** A random v4 UUID. */
  randomUUID(): string;
  /** base64url without padding. */
  base64url(bytes: Uint8Array): string;
  /** Bytes of a base64url text (lenient, as Node's decoder: callers compare the re-encoding where it matters). */
  fromBase64url(text: string): Uint8Array;
  /** UTF-8 bytes of a text. */
  utf8(text: string): Uint8Array;
  /** The text of UTF-8 bytes. */
  fromUtf8(bytes: Uint8Array): string;
  /** UTF-8 length of a text, without encoding it where the platform can. */
  byteLength(text: string): number;
  /** Run fn after pending I/O and timers get a turn (setImmediate in Node, a MessageChannel task in the browser). */
  macrotask(fn: () => void): void;
  /**
   * Bytes the JS heap can still grow by before the process dies of it
   * (Node: V8's limit less what is in use); absent where the platform does
   * not tell (a browser).
   */
  heapRoom?(): number;
  /**
   * Refuse a store file whose parse would not fit in the heap left, given
   * its text, or its size in bytes before it is read (platform/read-bound.ts);
   * absent where the platform does not tell its heap (a browser).
   * @throws SyncomError STORE_DAMAGED naming the file.
   */
  checkRead?(path: string, read: string | number): void;
  /** Ed25519. */
  readonly ed25519: Ed25519;
}
