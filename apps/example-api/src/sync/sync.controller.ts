import { Controller, Get } from '@nestjs/common';
import type { Storage } from 'syncom';
import { InjectStorage } from 'syncom-nest';

/** GET /sync/peers: the hubs this node dials, their state, and its registry (tokens left out). */
@Controller('sync')
export class SyncController {
  constructor(@InjectStorage() private readonly storage: Storage) {}

  @Get('peers')
  peers() {
    const nodes = this.storage.sync.listNodes().map(({ token: _t, ...n }) => n);
    return { id: this.storage.id, peers: this.storage.sync.peers(), nodes };
  }
}
