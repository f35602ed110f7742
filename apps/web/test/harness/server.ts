import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testBundle } from './bundle';

const HEAD = '<!doctype html><meta charset="utf-8"><title>syncom test page</title>';

/**
 * The test page and its bundle on 127.0.0.1 (a secure context for OPFS and
 * Web Crypto), port 0. `bundle: false` serves an empty page (raw Web Crypto
 * needs no engine).
 */
export class PageServer {
  private server: Server | undefined;
  url = '';

  constructor(private readonly o: { bundle?: boolean } = {}) {}

  async start(): Promise<string> {
    const js = this.o.bundle === false ? '' : await testBundle();
    const page = js ? `${HEAD}<script src="/bundle.js"></script>` : HEAD;
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/bundle.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      if (path === '/' || path === '/index.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
    return this.url;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
