import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { socketIoConnect, SyncomModule, type SyncomGatewayOptions, type SyncomModuleOptions } from 'syncom-nest';
import { hubAuthorize, scopeByField, scopeMap } from './hub-access';
import { DEFAULT_SCOPE_FIELD, type HubConfig, type HubLimits, hubLimits, hubSignatures } from './hub.config';
import { HealthController } from './health.controller';
import { HubLogger } from './hub-logger.service';
import { HubMetrics } from './hub-metrics';
import { HubPeerReach } from './hub-peer-reach';
import { HubPeers } from './hub-peers.service';
import { HubSocketCap } from './hub-socket-cap';
import { LoadProbe, LoadProbeController } from './load-probe.controller';
import { MetricsController } from './metrics.controller';

/**
 * The gateway: without tokens open to anyone (access 'public', warned at
 * start by the startup summary); with tokens, access 'session', so a socket
 * whose handshake token is not one of them never connects, and hello is held
 * to the scopes its token is bound to. Browser pages: see allowedOrigins.
 */
function gatewayOptions(config: HubConfig, limits: HubLimits): SyncomGatewayOptions {
  const { opsPerPush, bytesPerPush, opsPerSecond, purgesPerSecond, pageSize, pageBytes, maxInFlightFrames } = limits;
  const sizes = {
    pageSize, pageBytes, maxInFlightFrames, maxFeedsPerConnection: limits.feedsPerSocket, maxInFlightBytes: limits.inFlightBytes,
    preAuthBytes: limits.preAuthBytes, maxConnections: limits.maxConnections, ...(limits.inboundBytes !== undefined && { maxInboundBytes: limits.inboundBytes }),
    ...(config.proveNodes && { proveNodes: true }), limits: { opsPerPush, bytesPerPush, ...(opsPerSecond > 0 && { opsPerSecond }), ...(purgesPerSecond > 0 && { purgesPerSecond }) },
  };
  if (config.tokens.length === 0) return { access: 'public', ...originsOf(config), ...sizes };
  // Feeds serve ops by the scope they declare: once a token is bound to scopes, every pushed op
  // must declare the scope the hub's own rule gives its record, or a writer with another rule
  // would reach that token's feeds with records of other scopes.
  const exactScopes = scopeMap(config.tokenScopes).size > 0;
  return { access: 'session', authorize: hubAuthorize(config.tokens, config.tokenScopes), exactScopes, ...originsOf(config), ...sizes };
}

/**
 * The browser origins the gateway takes a socket from. Unset: with tokens any origin, since the hub reads its
 * credential from the handshake's auth, which a page of another site cannot know (the hub reads no cookie);
 * without tokens the gateway's default, its own origin only, or any page the operator's browser opens could
 * read and write an open hub on localhost or the intranet.
 */
function originsOf(config: HubConfig): Pick<SyncomGatewayOptions, 'allowedOrigins'> {
  if (config.allowedOrigins !== undefined) return { allowedOrigins: config.allowedOrigins };
  return config.tokens.length > 0 ? { allowedOrigins: '*' } : {};
}

/** Ops a sealed log segment of the hub holds at most (about 0.7 MB of signed ops): what one purge rewrites of the log. */
export const HUB_SEGMENT_OPS = 2048;

/** SyncomModule's options for the hub, from what ConfigService holds. */
function syncomOptions(c: ConfigService, metrics: HubMetrics | undefined): SyncomModuleOptions {
  const config = c.getOrThrow<HubConfig>('hub');
  return {
    path: config.path,
    // A power cut keeps what the hub acknowledged only with fsync (docs/guarantees.md, Durability).
    ...(config.durable && { durable: true }),
    scope: scopeByField(config.scopeField ?? DEFAULT_SCOPE_FIELD),
    // Segments bounded by ops as well as batches: a purge rewrites the segments holding its record (docs/security.md).
    // The default connect, its sockets watched: a peer hub out of reach is logged (logSync is off below).
    sync: { signatures: hubSignatures(config), log: { segmentOps: HUB_SEGMENT_OPS }, connect: socketIoConnect(config.io, new HubPeerReach().watch) },
    gateway: gatewayOptions(config, hubLimits(config)),
    // HubLogger logs the hub's sync errors and peers itself.
    logSync: false,
    ...(metrics && { telemetry: { meterProvider: metrics.meterProvider } }),
  };
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
        // The limits in force (defaults filled in), so every provider reads the same ones.
        ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ hub: { ...config, limits: hubLimits(config) } })] }),
        SyncomModule.forRootAsync({
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (c: ConfigService) => syncomOptions(c, metrics),
          gateway: true,
        }),
      ],
      controllers: [HealthController, ...extra.controllers],
      providers: [HubLogger, HubPeers, ...(config.tokens.length > 0 ? [HubSocketCap] : []), ...extra.providers],
    };
  }
}
