import { type Attributes, context, INVALID_SPAN_CONTEXT, type Span, type SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { ATTRS } from './names';

/** The span handed to callers when telemetry is off: records nothing, costs nothing. */
export const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

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
}

/** A failure's stable code: a SyncomError's `code`, else the error's name. */
export function errorCode(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  return e instanceof Error ? e.name : 'UNKNOWN';
}

/** Mark a span failed: status ERROR whose message is the code, `error.type`, and the exception. */
export function failSpan(span: Span, e: unknown): void {
  const code = errorCode(e);
  span.setAttribute(ATTRS.errorType, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  if (e instanceof Error) span.recordException(e);
}

/**
 * Run `fn` inside a span made active for it (so an app's context manager
 * nests what `fn` starts), ended when `fn` settles; a throw fails the span
 * and is rethrown as it was.
 */
export async function runSpan<T>(tracer: Tracer, run: SpanRun, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = run.parent ? trace.setSpan(context.active(), run.parent) : context.active();
  const span = tracer.startSpan(run.name, { kind: run.kind, attributes: run.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (e) {
    failSpan(span, e);
    throw e;
  } finally {
    span.end();
  }
}
