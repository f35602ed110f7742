import type { Attributes } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** A reader that exports nothing on its own: the test collects when it wants a reading. */
class ManualReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** One data point of a collected metric. */
export interface Point {
  attributes: Attributes;
  value: number;
}

/**
 * The OpenTelemetry SDK as an application would install it, in memory: a
 * tracer provider whose finished spans are kept, and a meter provider read
 * by hand. Passed to open() through `telemetry`, never registered globally.
 */
export class Otel {
  readonly exporter = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.exporter)] });
  readonly reader = new ManualReader();
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });

  get telemetry() {
    return { tracerProvider: this.tracerProvider, meterProvider: this.meterProvider };
  }

  /** Finished spans by name, optionally only those whose attributes include `attrs`. */
  spans(name: string, attrs: Attributes = {}): ReadableSpan[] {
    return this.exporter.getFinishedSpans().filter((s) => s.name === name && matches(s.attributes, attrs));
  }

  /** Collect now: the data points of one metric whose attributes include `attrs`. */
  async points(name: string, attrs: Attributes = {}): Promise<Point[]> {
    const { resourceMetrics, errors } = await this.reader.collect();
    if (errors.length) throw errors[0];
    const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
    const points = (metric?.dataPoints ?? []) as { attributes: Attributes; value: unknown }[];
    return points.filter((p) => matches(p.attributes, attrs)).map((p) => ({ attributes: p.attributes, value: p.value as number }));
  }

  /** Collect now: the sum of one metric's points whose attributes include `attrs` (0 when none). */
  async value(name: string, attrs: Attributes = {}): Promise<number> {
    return (await this.points(name, attrs)).reduce((n, p) => n + p.value, 0);
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.tracerProvider.shutdown(), this.meterProvider.shutdown()]);
  }
}

function matches(have: Attributes, want: Attributes): boolean {
  return Object.entries(want).every(([k, v]) => have[k] === v);
}
