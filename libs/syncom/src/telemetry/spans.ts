import type { Attributes, Context, Span, SpanContext, SpanKind, Tracer } from '@opentelemetry/api';
import { ATTRS } from './names';
import { otelApi } from './otel-api';

/**
 * The values of @opentelemetry/api's SpanKind, fixed by the OpenTelemetry
 * spec; written here so that no value of the API is needed where it is not
 * installed (a browser bundle).
 */
export const KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2, CONSUMER: 4 } as const satisfies Record<string, SpanKind>;

/** SpanStatusCode.ERROR. */
const STATUS_ERROR = 2;

const INVALID_CONTEXT: SpanContext = { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 };

/** The span handed to callers when telemetry is off: records nothing, costs nothing. */
export const NOOP_SPAN: Span = {
  spanContext: () => INVALID_CONTEXT,
  setAttribute() { return this; },
  setAttributes() { return this; },
  addEvent() { return this; },
  addLink() { return this; },
  addLinks() { return this; },
  setStatus() { return this; },
  updateName() { return this; },
  end() {},
  isRecording: () => false,
  recordException() {},
};

/** One span to run: its name, kind, starting attributes, and an explicit parent. */
export interface SpanRun {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  /**
   * The parent, passed by hand: without a context manager (an app that hands
   * syncom a bare provider) the active context is always the root.
   */
  parent?: Span;
  /** What a failure's message and stack go through (failSpan). */
  hide?: (text: string) => string;
}

/** A failure's stable code: a SyncomError's `code`, else the error's name. */
export function errorCode(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  return e instanceof Error ? e.name : 'UNKNOWN';
}

/**
 * Mark a span failed: status ERROR whose message is the code, `error.type`,
 * and the exception, its message and stack passed through `hide` (the
 * tokens this node presents, which a host's refusal may quote).
 */
export function failSpan(span: Span, e: unknown, hide: (text: string) => string = (t) => t): void {
  const code = errorCode(e);
  span.setAttribute(ATTRS.errorType, code);
  span.setStatus({ code: STATUS_ERROR, message: code });
  // A span that records nothing (no tracer, or not sampled) is not handed the texts: reading an error's stack formats it.
  if (!(e instanceof Error) || !span.isRecording()) return;
  const c = (e as { code?: unknown }).code;
  span.recordException({ name: e.name, message: hide(e.message), ...(typeof c === 'string' && { code: c }), ...(e.stack !== undefined && { stack: hide(e.stack) }) });
}

/**
 * Run `fn` inside a span made active for it (so an app's context manager
 * nests what `fn` starts), ended when `fn` settles; a throw fails the span
 * and is rethrown as it was. Without the API installed (a browser app that
 * handed syncom only a provider) there is no active context to set: the
 * span still gets its explicit parent.
 */
export async function runSpan<T>(tracer: Tracer, run: SpanRun, fn: (span: Span) => Promise<T>): Promise<T> {
  const api = otelApi();
  const parent = api
    ? (run.parent ? api.trace.setSpan(api.context.active(), run.parent) : api.context.active())
    : (run.parent ? parentOnly(run.parent) : undefined);
  const span = tracer.startSpan(run.name, { kind: run.kind, attributes: run.attributes }, parent);
  try {
    return await (api && parent ? api.context.with(api.trace.setSpan(parent, span), () => fn(span)) : fn(span));
  } catch (e) {
    failSpan(span, e, run.hide);
    throw e;
  } finally {
    span.end();
  }
}

/**
 * The key @opentelemetry/api files the current span under. Every copy of
 * the API makes it with Symbol.for, so an SDK reads it from a context that
 * none of them built.
 */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** A context that holds `span` as the current span and nothing else. */
function parentOnly(span: Span): Context {
  return new MapContext(new Map([[SPAN_KEY, span]]));
}

/** An immutable context over a map, as the API's own. */
class MapContext implements Context {
  constructor(private readonly values: Map<symbol, unknown>) {}

  getValue(key: symbol): unknown {
    return this.values.get(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new MapContext(new Map(this.values).set(key, value));
  }

  deleteValue(key: symbol): Context {
    const values = new Map(this.values);
    values.delete(key);
    return new MapContext(values);
  }
}
