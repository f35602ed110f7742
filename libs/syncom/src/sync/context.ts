import { schemaDrift, type SchemaInfo } from '../schema';
import { Emitter } from '../storage/emitter';
import type { Replica } from '../storage/replica';
import { SyncTelemetry } from '../telemetry';
import type { DialOptions } from './dial/options';
import { Registry } from './dial/registry';
import { SYNC_EVENT_NAMES, type SyncEvents } from './events';
import type { Hello } from './protocol/hello';
import { WIRE_VERSIONS } from './protocol/versions';

/** How long one drift (peer, version, hash) goes unwarned of again; how many distinct ones are warned of in that time. */
const DRIFT_WARN_EVERY = 10 * 60_000;
const DRIFT_WARN_KEYS = 16;

/**
 * What the dialers and the host units of one storage share: the replica
 * port, the options, the registry, the events and telemetry of both roles,
 * and the reports they make. Internal: it replaces a back-reference to the
 * manager, whose public type holds only what users call.
 */
export class SyncContext {
  readonly events = new Emitter<SyncEvents>(undefined, SYNC_EVENT_NAMES);
  readonly registry: Registry;
  /** Spans and metrics of both roles, from open({ telemetry }) (OPT-16). */
  readonly telemetry: SyncTelemetry;
  /** The drifts warned of in the last DRIFT_WARN_EVERY, by when, oldest first (checkDrift). */
  private readonly warned = new Map<string, number>();
  private heldBack = 0;

  constructor(readonly replica: Replica, readonly options: DialOptions) {
    this.registry = new Registry(replica.backend, !!replica.options.durable);
    this.telemetry = new SyncTelemetry(replica.options.telemetry, replica.id);
    // A host words its refusals as it likes: the token a dialer sent it stays out of the spans.
    this.telemetry.hideTokensOf(() => Array.from(this.registry.nodes.values(), (n) => n.token ?? ''));
  }

  /** The wire versions this node speaks. */
  get wireVersions(): readonly number[] {
    return this.options.wireVersions ?? WIRE_VERSIONS;
  }

  get signatures(): 'verify' | 'require' | false {
    return this.options.signatures ?? 'verify';
  }

  /** The schema as hello carries it: { version, hash } or null. */
  helloSchema(): SchemaInfo | null {
    return this.replica.schema?.info() ?? null;
  }

  /** A peer shares no version with this node (wire versions). */
  incompatible(peer: string, versions: number[]): void {
    this.events.emit('incompatible', { peer, versions });
  }

  /**
   * Drift: the same version with another hash is reported on the storage at
   * every hello (SCHEMA-5), and warned of once per peer, version and hash in
   * DRIFT_WARN_EVERY, DRIFT_WARN_KEYS of them at a time: anyone may greet an
   * open hub, as often as they like under any node id, and a line per hello
   * would let them fill its log. The next line counts those held back.
   */
  checkDrift(peer: string, schema: SchemaInfo | null): void {
    const local = this.helloSchema();
    if (!schema || !schemaDrift(local, schema)) return;
    const now = this.replica.now();
    for (const [key, at] of this.warned) {
      if (Math.abs(now - at) < DRIFT_WARN_EVERY) break;
      this.warned.delete(key);
    }
    const key = JSON.stringify([peer, schema.version, schema.hash]);
    if (this.warned.has(key) || this.warned.size >= DRIFT_WARN_KEYS) this.heldBack++;
    else {
      this.warned.set(key, now);
      const held = this.heldBack ? `; ${this.heldBack} drift warnings held back since the last` : '';
      this.heldBack = 0;
      // The peer's id and hash are its own words: quoted, so that a newline in them cannot forge a log line.
      console.warn(`syncom: schema drift with ${JSON.stringify(peer)}: version ${schema.version}, hash ${JSON.stringify(schema.hash)} here ${local?.hash}${held}`);
    }
    this.replica.reportDrift({ kind: 'drift', peer, version: schema.version, hash: schema.hash, local });
  }

  /** A host unit greeted a peer (LIFE-14). */
  greeted(hello: Hello): void {
    this.checkDrift(hello.node, hello.schema);
    this.events.emit('hello', { node: hello.node, scopes: hello.scopes, schema: hello.schema });
  }

  /** A host unit refused ops of a peer's page. */
  refused(e: SyncEvents['refused'][0]): void {
    this.events.emit('refused', e);
  }

  /** A host refused a peer's push for a limit (HOST-9..12): telemetry and the `limited` event. */
  limited(reason: string, node: string): void {
    this.telemetry.limited('host', node, reason);
    this.events.emit('limited', { node, reason });
  }
}
