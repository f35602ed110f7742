import { createServer, type Server } from 'node:net';

/** Listen on any free loopback port; resolves with the server. */
function listenAnywhere(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

/**
 * `n` distinct ports free on 127.0.0.1 right now (all held until all are
 * picked, so none repeats). For what must be known before it listens: a
 * hub's url in the others' SYNCOM_PEERS, the port a killed hub comes back
 * on, redis-server's --port, the apps the demo and the load tool start.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) servers.push(await listenAnywhere());
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}
