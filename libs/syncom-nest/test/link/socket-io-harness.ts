import { io, type Socket as ClientSocket } from 'socket.io-client';
import type { HostUnit, Storage } from 'syncom';
import { createSocketIoLink } from '../../src/link';
import type { SyncomGatewayOptions } from '../../src/syncom-options.interface';
import { startHub, type TestHub } from '../helpers/hub';
import type { ConformanceUnit } from './conformance-unit';
import type { LinkHarness } from './link-conformance';

/**
 * One gateway app for a whole spec file, whose storage's unit() is a unit
 * that forwards to the current test's ConformanceUnit (the gateway makes its
 * unit once, at init).
 */
export class ForwardingHost {
  current?: ConformanceUnit;
  hub?: TestHub;

  private readonly forward: HostUnit = {
    access: 'public',
    call: (m, a, c) => this.unit().call(m, a, c),
    subscribe: (m, a, c, o) => this.unit().subscribe(m, a, c, o),
    stream: (id, c) => this.unit().stream(id, c),
    disconnect: (c) => this.unit().disconnect(c),
  };

  async start(options: SyncomGatewayOptions = {}): Promise<TestHub> {
    const storage = { sync: { unit: () => this.forward, limited: () => undefined } } as unknown as Storage;
    this.hub = await startHub({ storage, options });
    return this.hub;
  }

  private unit(): ConformanceUnit {
    if (!this.current) throw new Error('no unit set');
    return this.current;
  }
}

function once(socket: ClientSocket, event: string): Promise<void> {
  return new Promise((resolve) => socket.once(event, () => resolve()));
}

/**
 * A socket.io link to the forwarding host. cut() closes the engine
 * connection from the client side (as a network drop would) and waits for
 * the gateway to disconnect the context; restore() reconnects the socket.
 * socket.io's own reconnection is off so the test decides when.
 */
export async function socketIoHarness(host: ForwardingHost, unit: ConformanceUnit, timeout = 10_000): Promise<LinkHarness> {
  host.current = unit;
  const socket = io((host.hub as TestHub).url, { transports: ['websocket'], forceNew: true, reconnection: false, reconnectionDelay: 20 });
  const link = createSocketIoLink(socket, { timeout });
  await once(socket, 'connect');
  return {
    link,
    cut: async () => {
      const before = unit.disconnected.length;
      const closed = new Promise<void>((resolve) => link.on('close', function off() {
        link.off('close', off);
        resolve();
      }));
      socket.io.engine.close();
      await closed;
      await unit.signal.until(() => unit.disconnected.length > before, 'the gateway disconnecting the context');
    },
    restore: async () => {
      const reconnected = new Promise<void>((resolve) => link.on('reconnect', function off() {
        link.off('reconnect', off);
        resolve();
      }));
      socket.connect();
      await reconnected;
    },
    dispose: async () => {
      const wasUp = socket.connected;
      const before = unit.disconnected.length;
      link.close();
      if (wasUp) await unit.signal.until(() => unit.disconnected.length > before, 'the gateway disconnect');
    },
  };
}
