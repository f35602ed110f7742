import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The engine's TypeScript sources: the app bundles them as they are, so a build needs no dist of libs/syncom. */
const engine = (path: string) => fileURLToPath(new URL(`../../libs/syncom/src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^syncom\/browser$/, replacement: engine('browser.ts') },
      { find: /^syncom\/socket\.io$/, replacement: engine('socket.io/index.ts') },
    ],
  },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  // `npm run dev -w apps/web`: the page on Vite's port, socket.io through to a hub on 8000 (npm start).
  server: { proxy: { '/socket.io': { target: 'http://127.0.0.1:8000', ws: true } } },
});
