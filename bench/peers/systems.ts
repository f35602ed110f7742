/** One system of the peers comparison: its child files and what its server and clients are told. */
export interface PeerSystem {
  /** Its name in the figures: peers/<name>/n=<N>/... */
  name: string;
  /** Its directory, bench/peers/<files>/: systems of one directory share their processes. */
  files: string;
  /** The server child (bench/peers/<files>/server.ts), from the repository root. */
  server: string;
  /** The client child, forked twice: the writer and the reader. */
  client: string;
  /** Passed to the server's start and the clients' open (syncom's signatures). */
  options?: { signatures?: 'verify' | false };
}

const files = (dir: string) => ({ files: dir, server: `bench/peers/${dir}/server.ts`, client: `bench/peers/${dir}/client.ts` });

/** syncom with signatures on, the reference every peer's ratio is taken against. */
export const SYNCOM_VERIFY: PeerSystem = { name: 'syncom-verify', ...files('syncom'), options: { signatures: 'verify' } };
/** syncom with signing and verifying off, on the server and both clients. */
export const SYNCOM_FALSE: PeerSystem = { name: 'syncom-false', ...files('syncom'), options: { signatures: false } };

/** The peers, in the order they run (after syncom). */
export const PEERS: readonly PeerSystem[] = [
  { name: 'tinybase', ...files('tinybase') },
  { name: 'yjs', ...files('yjs') },
  { name: 'automerge', ...files('automerge') },
];
