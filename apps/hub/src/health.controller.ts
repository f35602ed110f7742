import { Controller, Get } from '@nestjs/common';
import { InjectStorage } from 'syncom-nest';
import type { Storage } from 'syncom';

/** GET /health: this hub's id and vector, the nodes it dials and the peers it hosts. */
@Controller('health')
export class HealthController {
  constructor(@InjectStorage() private readonly storage: Storage) {}

  @Get()
  health() {
    const s = this.storage;
    return { id: s.id, vector: s.parts.log.vector, peers: s.sync.peers(), hosted: s.sync.hosted() };
  }
}
