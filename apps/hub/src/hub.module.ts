import { type DynamicModule, Logger, Module, type Provider, type Type } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { SyncomModule, type SyncomModuleOptions } from 'syncom-nest';
import type { HubConfig } from './hub.config';
import { HealthController } from './health.controller';
import { HubLogger } from './hub-logger.service';
import { HubMetrics } from './hub-metrics';
import { HubPeers } from './hub-peers.service';
import { LoadProbe, LoadProbeController } from './load-probe.controller';
import { MetricsController } from './metrics.controller';

/** The gateway's authorize: a hello must carry one of the tokens, unless none are configured. */
function tokenCheck(tokens: string[]): SyncomModuleOptions['gateway'] {
  if (tokens.length === 0) {
    new Logger('Hub').warn('SYNCOM_TOKENS is unset: any peer may sync with this hub');
    return { access: 'public' };
  }
  const allowed = new Set(tokens);
  return { access: 'public', authorize: (_ctx, hello) => typeof hello.token === 'string' && allowed.has(hello.token) };
}

/** Controllers and providers beyond /health and the logger, each behind its config flag. */
function optional(config: HubConfig, metrics: HubMetrics | undefined): { controllers: Type[]; providers: Provider[] } {
  const controllers: Type[] = [];
  const providers: Provider[] = [];
  if (metrics) {
    controllers.push(MetricsController);
    providers.push({ provide: HubMetrics, useValue: metrics });
  }
  if (config.loadProbe) {
    controllers.push(LoadProbeController);
    providers.push(LoadProbe);
  }
  return { controllers, providers };
}

/**
 * The hub: SyncomModule with the gateway, configured through ConfigService
 * (forRootAsync); HubPeers dials the other hubs of config.peers; with
 * config.metrics, a MeterProvider for the storage's telemetry and GET
 * /metrics. Without it the route is not mounted at all (404); the same
 * holds for GET /load-probe and config.loadProbe.
 */
@Module({})
export class HubModule {
  static register(config: HubConfig): DynamicModule {
    const metrics = config.metrics ? new HubMetrics() : undefined;
    const extra = optional(config, metrics);
    return {
      module: HubModule,
      imports: [
        ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ hub: config })] }),
        SyncomModule.forRootAsync({
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (c: ConfigService): SyncomModuleOptions => ({
            path: c.getOrThrow<string>('hub.path'),
            gateway: tokenCheck(c.getOrThrow<string[]>('hub.tokens')),
            io: c.get('hub.io'),
            ...(metrics && { telemetry: { meterProvider: metrics.meterProvider } }),
          }),
          gateway: true,
        }),
      ],
      controllers: [HealthController, ...extra.controllers],
      providers: [HubLogger, HubPeers, ...extra.providers],
    };
  }
}
