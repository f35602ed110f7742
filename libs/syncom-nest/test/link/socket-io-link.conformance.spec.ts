import { runLinkConformance } from './link-conformance';
import { ForwardingHost, socketIoHarness } from './socket-io-harness';

// LINK-2: the socket.io link and the gateway, against the memory link's suite.
const host = new ForwardingHost();
beforeAll(() => host.start());
afterAll(() => host.hub?.close());

runLinkConformance('socket.io link', (unit) => socketIoHarness(host, unit));
