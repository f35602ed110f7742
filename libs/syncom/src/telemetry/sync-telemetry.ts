import type { Attributes, Counter, Meter, Span, SpanKind, Tracer } from '@opentelemetry/api';
import { type GaugeSource, observeGauges } from './gauges';
import { ATTRS, METRICS, type RejectReason, type Role, SPANS } from './names';
import type { TelemetryOptions } from './options';
import { VERSION } from '../version';
import { otelApi } from './otel-api';
import { failSpan, KIND, NOOP_SPAN, runSpan } from './spans';
import { urlLabel } from './url-label';
import { hideTokens } from './hidden-tokens';

/** What one page applied did, as the telemetry counts it (applyPeerOps' result, in short). */
export interface PageOutcome {
  applied: number;
  forged: number;
  unsigned: number;
  /** Malformed in all, skew included. */
  malformed: number;
  skew: number;
  outOfScope: number;
  invalid: number;
}

const kindOf = (role: Role): SpanKind => (role === 'dialer' ? KIND.CLIENT : KIND.SERVER);

/** The peer attribute: a dialer's url without its credentials (urlLabel); a node id is left as it is. */
const peerOf = (peer: string): string => urlLabel(peer);

/**
 * Peers the counters and the sync.lag gauge name, at most: a host's peer is
 * the node id its hello claims, which anyone who may greet picks afresh at
 * each hello, and every label value a metric was given stays a series for
 * good (in the SDK and at every scrape, with cumulative temporality). Past it
 * a peer is counted as '(other)'; those named first keep their series. 256
 * peers by the six reasons of syncom.ops.rejected, or by the two roles of the
 * gauge, stay within the SDK's default 2,000 series a metric, so its overflow
 * series, which names no peer at all, is never reached.
 */
export const MAX_PEER_LABELS = 256;

/** A counter that counts nothing, for telemetry off or no meter to be had. */
const NOOP_COUNTER: Counter = { add() {} };

/**
 * Every span and instrument syncom makes, in one place. Spans go
 * round a protocol step; counters move once per page, never per local write;
 * gauges are read at collection. `false` makes all of it a pass-through.
 */
export class SyncTelemetry {
  /** False for `telemetry: false`: spans run their function bare, nothing is observed. */
  readonly enabled: boolean;
  private readonly tracer?: Tracer;
  /** Absent for `false`, or with neither a meterProvider nor the API installed (a browser app). */
  private readonly meter?: Meter;
  private readonly base: Attributes;
  private readonly applied: Counter;
  private readonly rejected: Counter;
  private readonly limitedOps: Counter;
  /** The peer labels the counters and the lag gauge named so far (MAX_PEER_LABELS). */
  private readonly named = new Set<string>();
  /** The tokens this node presents (its registered nodes'), kept out of a failed span's exception. */
  private tokens: () => readonly string[] = () => [];
  private readonly hide = (text: string) => hideTokens(text, this.tokens());

  constructor(options: TelemetryOptions | undefined, node: string) {
    this.base = { [ATTRS.node]: node };
    this.enabled = options !== false;
    if (options !== false) {
      // Either provider left out is the global one, where the API is installed (Node: always).
      const api = options?.tracerProvider && options.meterProvider ? undefined : otelApi();
      this.tracer = (options?.tracerProvider ?? api?.trace)?.getTracer('syncom', VERSION);
      this.meter = (options?.meterProvider ?? api?.metrics)?.getMeter('syncom', VERSION);
    }
    const counter = (name: string, description: string, unit: string) => this.meter?.createCounter(name, { description, unit }) ?? NOOP_COUNTER;
    this.applied = counter(METRICS.opsApplied, 'Peer ops applied', '{op}');
    this.rejected = counter(METRICS.opsRejected, 'Peer ops refused, by reason', '{op}');
    this.limitedOps = counter(METRICS.opsLimited, 'Push pages refused by a limit, by reason', '{push}');
  }

  /** A hello, sent (dialer) or answered (host: the peer is known once the hello checks, so the host sets it). */
  hello<T>(role: Role, peer: string | undefined, fn: (span: Span) => Promise<T>): Promise<T> {
    return this.span(SPANS.hello, kindOf(role), peer === undefined ? { [ATTRS.role]: role } : { [ATTRS.role]: role, [ATTRS.peer]: peerOf(peer) }, fn);
  }

  /** A push page of `ops` ops, sent (dialer) or received (host). */
  push<T>(role: Role, peer: string, ops: number, fn: (span: Span) => Promise<T>): Promise<T> {
    return this.span(SPANS.push, kindOf(role), { [ATTRS.role]: role, [ATTRS.peer]: peerOf(peer), [ATTRS.ops]: ops }, fn);
  }

  /** A changes page a dialer applies. */
  changesPage<T>(peer: string, ops: number, fn: (span: Span) => Promise<T>): Promise<T> {
    return this.span(SPANS.changesPage, KIND.CONSUMER, { [ATTRS.role]: 'dialer', [ATTRS.peer]: peerOf(peer), [ATTRS.ops]: ops }, fn);
  }

  /** A snapshot page: fetched and joined (dialer, under its bootstrap span) or served (host). */
  snapshotPage<T>(o: { role: Role; peer: string; offset: number; parent?: Span }, fn: (span: Span) => Promise<T>): Promise<T> {
    return this.span(SPANS.snapshotPage, kindOf(o.role), { [ATTRS.role]: o.role, [ATTRS.peer]: peerOf(o.peer), [ATTRS.offset]: o.offset }, fn, o.parent);
  }

  /** A bootstrap from a host. */
  bootstrap<T>(peer: string, fn: (span: Span) => Promise<T>): Promise<T> {
    return this.span(SPANS.bootstrap, KIND.INTERNAL, { [ATTRS.role]: 'dialer', [ATTRS.peer]: peerOf(peer) }, fn);
  }

  /** A reconciliation round with a peer (for the reconciliation protocol to wrap its rounds in). */
  reconciliation<T>(role: Role, peer: string, fn: (span: Span) => Promise<T>): Promise<T> {
    return this.span(SPANS.reconciliation, kindOf(role), { [ATTRS.role]: role, [ATTRS.peer]: peerOf(peer) }, fn);
  }

  /** Where the tokens a failed span's exception must not carry come from (the registry's). */
  hideTokensOf(tokens: () => readonly string[]): void {
    this.tokens = tokens;
  }

  /** Fail a span without a throw (a page that was refused but answered). */
  fail(span: Span, e: unknown): void {
    failSpan(span, e, this.hide);
  }

  /**
   * Count one applied page: applied, and rejected by reason; `unreadable`
   * are the ops unpacking already dropped as malformed. Sets the span's
   * applied count too. A page refused whole (beforeApply threw) fails the
   * span and counts nothing: it comes again.
   */
  pageApplied(span: Span, o: { role: Role; peer: string }, r: PageOutcome & { refused?: unknown }, unreadable = 0): void {
    if (r.refused) return this.fail(span, r.refused);
    span.setAttribute(ATTRS.applied, r.applied);
    if (r.applied) this.applied.add(r.applied, { ...this.base, [ATTRS.role]: o.role });
    const reasons: [RejectReason, number][] = [
      ['forged', r.forged], ['unsigned', r.unsigned], ['malformed', r.malformed - r.skew + unreadable],
      ['skew', r.skew], ['scope', r.outOfScope], ['invalid', r.invalid],
    ];
    for (const [reason, n] of reasons) {
      if (n > 0) this.rejected.add(n, { ...this.base, [ATTRS.role]: o.role, [ATTRS.peer]: this.label(o.peer), [ATTRS.reason]: reason });
    }
  }

  /** A push page refused by a host's limit: counted by the host and by the dialer it refused. */
  limited(role: Role, peer: string, reason: string): void {
    this.limitedOps.add(1, { ...this.base, [ATTRS.role]: role, [ATTRS.peer]: this.label(peer), [ATTRS.reason]: reason });
  }

  /**
   * A counter's or the lag gauge's peer label: the peer's while fewer than MAX_PEER_LABELS were named, else
   * '(other)'. Named by label, so two urls that differ only in what the label strips take one place.
   */
  private label(peer: string): string {
    const label = peerOf(peer);
    const named = this.named;
    return named.has(label) || (named.size < MAX_PEER_LABELS && named.add(label)) ? label : '(other)';
  }

  /** Register the gauges over a storage's state (read at collection only); the lag names the counters' peers. */
  observe(source: GaugeSource): void {
    if (this.meter) observeGauges(this.meter, this.base, source, (peer) => this.label(peer));
  }

  private span<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span) => Promise<T>, parent?: Span): Promise<T> {
    if (!this.tracer) return fn(NOOP_SPAN);
    return runSpan(this.tracer, { name, kind, attributes, parent, hide: this.hide }, fn);
  }
}
