import { startHub, type TestHub } from '../../../libs/syncom-nest/test/helpers/hub';
import { describeBrowser } from './harness/chromium';
import { BrowserEnv } from './harness/kit';

/**
 * A page served from another origin than the gateway's, dialing it with
 * socket.io-client's default transports (long-polling first) or long-polling
 * alone: the browser holds long-polling to CORS, where a WebSocket is not.
 */
describeBrowser('a page of an allowed origin, over long-polling', () => {
  const env = new BrowserEnv();
  const hubs: TestHub[] = [];
  beforeAll(() => env.start());
  afterAll(async () => {
    await env.stop();
    for (const h of hubs) await h.close();
  });
  const gateway = async (transports: ('websocket' | 'polling')[]) => {
    const hub = await startHub({ transports, options: { access: 'public', allowedOrigins: [new URL(env.server.url).origin] } });
    hubs.push(hub);
    return hub;
  };

  it('syncs with a gateway that allows long-polling: its browser is handed the answers (they name the page\'s origin)', async () => {
    const hub = await gateway(['websocket', 'polling']);
    const { kit } = await env.tab(await env.context());
    await kit.open('polling', { hub: { url: hub.url, token: '' }, transports: ['polling'] });
    const id = await kit.insert('polling', { title: 'over long-polling' });
    await kit.synced('polling', hub.url);
    expect(await hub.storage.get(id)).toEqual({ title: 'over long-polling' });
  });

  it("with socket.io-client's default transports against a WebSocket-only gateway, lastError says to make the socket WebSocket only", async () => {
    const hub = await gateway(['websocket']);
    const { kit } = await env.tab(await env.context());
    await kit.open('default-io', { hub: { url: hub.url, token: '' }, transports: [] });
    expect(await kit.untilLinkError('default-io')).toEqual({ code: 'LINK_DOWN', message: expect.stringMatching(/takes WebSocket only.*transports: \['websocket'\]/) });
  });
});
