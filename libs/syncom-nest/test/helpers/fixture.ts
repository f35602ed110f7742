import type { Socket as ClientSocket } from 'socket.io-client';
import type { Storage } from 'syncom';
import { type HubSetup, startHub, type TestHub } from './hub';

/** What one gateway e2e file opens; everything in it is closed after each test. */
export interface GatewayFixture {
  storages: Storage[];
  sockets: ClientSocket[];
  /** startHub, with the hub closed after the test. */
  startHub(setup?: HubSetup): Promise<TestHub>;
}

/**
 * The per-test resources of a gateway e2e file, registered with an afterEach
 * that disconnects the sockets, closes the storages, then the hubs.
 */
export function gatewayFixture(): GatewayFixture {
  const hubs: TestHub[] = [];
  const f: GatewayFixture = {
    storages: [],
    sockets: [],
    startHub: async (setup) => {
      const hub = await startHub(setup);
      hubs.push(hub);
      return hub;
    },
  };
  afterEach(async () => {
    for (const s of f.sockets.splice(0)) s.disconnect();
    for (const s of f.storages.splice(0)) await s.close();
    for (const h of hubs.splice(0)) await h.close();
  });
  return f;
}
