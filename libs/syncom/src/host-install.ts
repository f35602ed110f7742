import { installHostUnit } from './sync/host-slot';
import { SyncUnit } from './sync/host/unit';

// Imported by the `syncom` entry and by `syncom/host`: from here on storage.sync.unit() hosts.
installHostUnit((ctx, options) => new SyncUnit(ctx, options));
