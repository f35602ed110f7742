import { Controller, Get } from '@nestjs/common';
import type { Storage } from 'syncom';
import { InjectStorage, loggedUrl, servedPeer } from 'syncom-nest';

/**
 * GET /sync/peers: the hubs this node dials, their state, and its registry. No
 * credential goes out: tokens are left out, and urls lose their user info and
 * query (loggedUrl), where a hub url may carry them (`http://user:pass@hub`,
 * `?apikey=`), the peers' last errors' urls too (servedPeer), whose messages (a hub's words) serve
 * each token as `<token>`.
 */
@Controller('sync')
export class SyncController {
  constructor(@InjectStorage() private readonly storage: Storage) {}

  @Get('peers')
  peers() {
    const nodes = this.storage.sync.listNodes().map(({ token: _t, ...n }) => ({ ...n, url: loggedUrl(n.url) }));
    // A peer's last error is its hub's words, which may quote the token it was sent.
    const tokens = this.storage.sync.listNodes().map((n) => n.token ?? '');
    const peers = this.storage.sync.peers().map((p) => servedPeer(p, tokens));
    return { id: this.storage.id, peers, nodes };
  }
}
