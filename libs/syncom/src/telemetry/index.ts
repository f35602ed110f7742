export { SyncTelemetry } from './sync-telemetry';
export type { PageOutcome } from './sync-telemetry';
export type { TelemetryOptions } from './options';
export { ATTRS, METRICS, SPANS } from './names';
export type { RejectReason, Role } from './names';
export type { GaugeSource, PeerGauge } from './gauges';
export { installTelemetry } from './otel-api';
export { urlLabel } from './url-label';
export type { OtelApi } from './otel-api';
