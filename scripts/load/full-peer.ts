import { generateKeyPairSync } from 'node:crypto';
import { createMemoryBackend, open, type Storage, type Vector } from 'syncom';
import { socketIoConnect } from 'syncom-nest';
import type { RawWrite } from './raw-peer';

let sealing: { publicKey: string; privateKey: string } | undefined;

/**
 * A memory backend seeded with one RSA sealing pair for every full peer of
 * the run: open() would otherwise spend 0.1-0.3 s generating one per node.
 * Each peer still makes its own Ed25519 signing key, hence its own node id.
 */
function seededBackend() {
  sealing ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return createMemoryBackend({ files: { 'keys/seal-public.pem': sealing.publicKey, 'keys/seal-private.pem': sealing.privateKey } });
}

/**
 * A real syncom storage dialing the hub over socket.io (the default dialer
 * connect of syncom-nest): it verifies and applies every op, so it is the
 * sample whose records are compared with the hub's.
 */
export class FullPeer {
  /** Writes made; `acked` tells which the hub holds. */
  readonly writes: RawWrite[] = [];
  private turn: Promise<void> = Promise.resolve();
  /** What covers() was last asked, its streams, and how many of them this peer is known to hold. */
  private goal?: { vector: Vector; keys: string[]; at: number };

  private constructor(readonly index: number, readonly storage: Storage) {}

  static async open(index: number): Promise<FullPeer> {
    const connect = socketIoConnect({ forceNew: true, reconnectionDelay: 100, reconnectionDelayMax: 1000 });
    const storage = await open({ path: `load-full-${index}`, backend: seededBackend(), sync: { connect } });
    return new FullPeer(index, storage);
  }

  get node(): string {
    return this.storage.id;
  }

  /** Registers the hub and resolves at the bootstrap (a fresh node's first contact); the milliseconds it took. */
  async connect(url: string, token: string): Promise<number> {
    const t0 = performance.now();
    const booted = new Promise<void>((resolve) => {
      const off = this.storage.sync.on('bootstrap', () => { off(); resolve(); });
    });
    await this.storage.sync.addNode({ url, token });
    await booted;
    return performance.now() - t0;
  }

  /** One insert, after the ones before it; the dialer pushes it to the hub in the background. */
  write(): Promise<void> {
    this.turn = this.turn.then(async () => {
      const n = this.writes.length + 1;
      const data = { peer: this.index, n, at: Date.now() };
      this.writes.push({ id: await this.storage.insert(data), seq: n, data });
    });
    return this.turn;
  }

  /** Own writes the hub acknowledged holding (the registry's acked vector). */
  acked(): number {
    return this.storage.sync.listNodes()[0]?.acked[this.node] ?? 0;
  }

  /** Resolves once the hub acknowledged holding every write of this peer. */
  pushed(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => this.acked() >= this.writes.length;
      if (done()) return resolve();
      const off = this.storage.sync.on('sync', () => {
        if (!done()) return;
        off();
        resolve();
      });
    });
  }

  /**
   * Whether this peer's log holds every stream of `vector`. Asked at every
   * change while settling: the streams already held are not checked again (a
   * log's streams only move forward), so a settle over thousands of streams
   * costs each stream once, not once per change.
   */
  covers(vector: Vector): boolean {
    let g = this.goal;
    if (g?.vector !== vector) g = this.goal = { vector, keys: Object.keys(vector), at: 0 };
    const mine = this.storage.replica.vector;
    while (g.at < g.keys.length && (mine[g.keys[g.at]] ?? 0) >= vector[g.keys[g.at]]) g.at++;
    return g.at === g.keys.length;
  }

  /** Calls `listener` at every change and every push answered; returns the way to stop. */
  onProgress(listener: () => void): () => void {
    const offs = [this.storage.on('change', listener), this.storage.sync.on('sync', listener)];
    return () => offs.forEach((off) => off());
  }

  close(): Promise<void> {
    return this.storage.close();
  }
}
