import {
  constants, createCipheriv, createDecipheriv, type KeyObject, privateDecrypt, publicEncrypt, randomBytes,
} from 'node:crypto';

/** The box format's version, first of the blob's dot-separated parts. */
const BOX_VERSION = '1';
const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' } as const;
// Unwrapped content keys by wrapped key: a file's boxes share one, so a reopen pays one RSA decrypt per file.
const CACHE_LIMIT = 4096;

/**
 * Seals texts for one RSA key (DESIGN: Storage API, GUAR-19): hybrid
 * encryption, a fresh AES-256-GCM content key per sealer (one per log batch or
 * record file written) wrapped with RSA-OAEP-SHA256. Each box is
 * `1.<wrapped key>.<iv>.<tag>.<ciphertext>`, base64url parts, and binds `aad`
 * (the op header or the record id), so a box moved to another entry fails to open.
 *
 * @example
 * const box = new BoxSealer(keys.sealPublic).seal(JSON.stringify(secret), header);
 */
export class BoxSealer {
  private readonly key = randomBytes(32);
  private readonly wrapped: string;

  constructor(publicKey: KeyObject) {
    this.wrapped = publicEncrypt({ key: publicKey, ...OAEP }, this.key).toString('base64url');
  }

  /** One box: `text` encrypted under this sealer's content key, with a fresh 12-byte IV. */
  seal(text: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    const parts = [BOX_VERSION, this.wrapped, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')];
    return parts.join('.');
  }
}

/** Opens the boxes a {@link BoxSealer} made for this node's public key. */
export class BoxOpener {
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly privateKey: KeyObject) {}

  /** The text in a box, or undefined when it is no box, another key's, or was tampered with. */
  open(box: unknown, aad: string): string | undefined {
    if (typeof box !== 'string') return undefined;
    const parts = box.split('.');
    if (parts.length !== 5 || parts[0] !== BOX_VERSION) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.unwrap(parts[1]), Buffer.from(parts[2], 'base64url'), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(parts[3], 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(parts[4], 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  private unwrap(wrapped: string): Buffer {
    let key = this.keys.get(wrapped);
    if (!key) {
      key = privateDecrypt({ key: this.privateKey, ...OAEP }, Buffer.from(wrapped, 'base64url'));
      if (this.keys.size >= CACHE_LIMIT) this.keys.delete(this.keys.keys().next().value as string);
      this.keys.set(wrapped, key);
    }
    return key;
  }
}
