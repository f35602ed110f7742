import { createMemoryLink } from 'syncom';
import { runLinkConformance } from './link-conformance';

// The engine's in-process link, against the same suite as the socket.io link.
runLinkConformance('memory link', async (unit) => {
  const link = createMemoryLink(unit);
  return {
    link,
    cut: async () => link.cut(),
    restore: async () => link.restore(),
    dispose: async () => link.close(),
  };
});
