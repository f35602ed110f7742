import type { MeterProvider, TracerProvider } from '@opentelemetry/api';

/**
 * open({ telemetry }) (Options, OPT-16): beside `sync`, not inside it.
 * syncom speaks `@opentelemetry/api` only; the application brings the SDK.
 *
 * - absent: the global providers (`trace.getTracer('syncom')`,
 *   `metrics.getMeter('syncom')`), no-ops unless the app registered an SDK.
 *   The global meter is taken at open(): register the SDK before it.
 * - `{ tracerProvider, meterProvider }`: these instead of the globals (either
 *   may be left out: that one stays global).
 * - `false`: no spans, no metrics.
 *
 * @example
 * const meterProvider = new MeterProvider({ readers: [reader] });
 * const storage = await open({ path: 'data', telemetry: { meterProvider } });
 */
export type TelemetryOptions = false | {
  tracerProvider?: TracerProvider;
  meterProvider?: MeterProvider;
};
