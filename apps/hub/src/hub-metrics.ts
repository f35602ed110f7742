import type { OnApplicationShutdown } from '@nestjs/common';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/**
 * The hub's metrics (SYNCOM_METRICS=1): a MeterProvider, handed to the
 * storage as `telemetry: { meterProvider }`, read by the official Prometheus
 * exporter and rendered in the Prometheus text format on GET /metrics.
 */
export class HubMetrics implements OnApplicationShutdown {
  /** The content type of the Prometheus text exposition format. */
  static readonly contentType = 'text/plain; version=0.0.4; charset=utf-8';
  // The exporter's own HTTP server stays off: the hub answers on its own port, beside /health.
  private readonly reader = new PrometheusExporter({ preventServerStart: true });
  private readonly serializer = new PrometheusSerializer();
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });

  /** Collect now and render every metric in the Prometheus text format. */
  async text(): Promise<string> {
    const { resourceMetrics, errors } = await this.reader.collect();
    // A failed callback drops its own instruments from this scrape only: say so in a comment line, as the exporter does.
    const failed = errors.map((e) => `# failed to collect: ${String(e)}\n`).join('');
    return failed + this.serializer.serialize(resourceMetrics);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.meterProvider.shutdown();
  }
}
