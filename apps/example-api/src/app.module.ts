import { type DynamicModule, Module } from '@nestjs/common';
import { scopeByField } from 'syncom';
import { SyncomModule } from 'syncom-nest';
import { EXAMPLE_CONFIG } from './example.constants';
import type { ExampleConfig } from './example.config';
import { NotesController } from './notes/notes.controller';
import { HubRegistration } from './sync/hub-registration.service';
import { SyncController } from './sync/sync.controller';

/** The example REST app: SyncomModule.forRoot (a dialer, no gateway), notes and sync endpoints. */
@Module({})
export class AppModule {
  static register(config: ExampleConfig): DynamicModule {
    return {
      module: AppModule,
      // logSync off: HubRegistration logs this app's peer and error events itself.
      // Records are placed by the hub's own scope rule: a hub with tokens bound to scopes refused every write scoped '*'.
      // autoStart off: HubRegistration starts sync once the registry holds SYNCOM_HUB alone, so no hub of an earlier run is dialed.
      imports: [SyncomModule.forRoot({
        path: config.path, ...(config.durable && { durable: true }), io: config.io, isGlobal: true, logSync: false, scope: scopeByField(config.scopeField ?? '$type'), sync: { autoStart: false },
      })],
      controllers: [NotesController, SyncController],
      providers: [{ provide: EXAMPLE_CONFIG, useValue: config }, HubRegistration],
    };
  }
}
