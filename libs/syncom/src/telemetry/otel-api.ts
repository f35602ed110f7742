import type { ContextAPI, MetricsAPI, TraceAPI } from '@opentelemetry/api';

/**
 * What syncom uses of `@opentelemetry/api`: its global trace, metrics and
 * context APIs. The module itself is one (`import * as api from
 * '@opentelemetry/api'`).
 */
export interface OtelApi {
  trace: TraceAPI;
  metrics: MetricsAPI;
  context: ContextAPI;
}

// undefined: not looked up yet; null: none to be had (a browser with no install).
let installed: OtelApi | null | undefined;

/**
 * Hand syncom `@opentelemetry/api`, so that storages opened after it use its
 * global tracer and meter (when `telemetry` gives no provider) and its active
 * context. The `syncom` entry (Node) does it as it loads; the browser entry
 * does not, so that the API stays out of a browser bundle that does not use
 * it. `undefined` takes it away again (as a browser app that handed none
 * runs: only the providers given to open() report). Returns the API
 * installed before, if any.
 *
 * @example
 * import * as api from '@opentelemetry/api';
 * import { installTelemetry } from 'syncom/browser';
 * installTelemetry(api);
 */
export function installTelemetry(api: OtelApi | undefined): OtelApi | undefined {
  const previous = otelApi();
  installed = api ?? null;
  return previous;
}

/** The installed API; under Node with none installed (a module loaded without an entry, as tests do), the package's. */
export function otelApi(): OtelApi | undefined {
  if (installed === undefined) installed = nodeFallback();
  return installed ?? undefined;
}

/** @opentelemetry/api by an indirect require that bundlers leave out of a browser build. */
function nodeFallback(): OtelApi | null {
  const node = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
  const load = node && typeof require === 'function' ? require : undefined;
  try {
    return load ? (load('@opentelemetry/api') as OtelApi) : null;
  } catch {
    return null;
  }
}
