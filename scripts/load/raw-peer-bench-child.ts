// The raw peers of raw-peer-bench.ts: argv url, peers, the checkout whose raw-peer.ts to run.
import { join } from 'node:path';
import { cpuMs } from './peers';

interface Peer { connect(url: string, token: string): Promise<number>; close(): void }

async function main(): Promise<void> {
  const [url, n, root] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RawPeer } = require(join(root, 'scripts/load/raw-peer.ts')) as { RawPeer: new (i: number) => Peer };
  const peers = Array.from({ length: n }, (_, i) => new RawPeer(i));
  for (let i = 0; i < n; i += 50) await Promise.all(peers.slice(i, i + 50).map((p) => p.connect(url, 't')));
  process.send?.({ cpuMs: cpuMs() });
  process.once('message', () => {
    process.send?.({ cpuMs: cpuMs() });
    peers.forEach((p) => p.close());
    // Exit on its own (a profile, --cpu-prof, is written at a normal exit only).
    setTimeout(() => process.exit(0), 200);
  });
}

void main();
