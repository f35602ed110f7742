import type { SyncLink } from 'syncom';
import { ConformanceUnit } from './conformance-unit';
import { connectionConformance } from './link-connection.conformance';
import { contractConformance } from './link-contract.conformance';

/** A link under test, reaching a ConformanceUnit, with a way to drop and restore its connection. */
export interface LinkHarness {
  link: SyncLink & { stream(id: string): AsyncIterable<Uint8Array> };
  /** Drops the connection; resolves once the link fired 'close' and the host disconnected the context. */
  cut(): Promise<void>;
  /** Opens a new connection; resolves once the link fired 'open' and 'reconnect'. */
  restore(): Promise<void>;
  /** Frees what the harness made (the link is closed by then or now). */
  dispose(): Promise<void>;
}

/** Makes a harness for a fresh unit. */
export type LinkSetup = (unit: ConformanceUnit) => Promise<LinkHarness>;

/** The state one test of the suite works on; `make` builds it and the suite disposes of it. */
export interface ConformanceRun {
  make(session?: boolean): Promise<{ unit: ConformanceUnit; h: LinkHarness }>;
}

/**
 * The SyncLink contract (LINK-3..8, PROTO-12) as one suite run against every
 * link: the memory link and the socket.io link (STYLE: one conformance suite
 * per port). Tests wait on the unit's signal and on the link's own promises,
 * never on time.
 */
export function runLinkConformance(name: string, setup: LinkSetup): void {
  describe(`${name}: the link contract`, () => {
    const made: LinkHarness[] = [];
    const run: ConformanceRun = {
      async make(session = false) {
        const unit = new ConformanceUnit(session);
        const h = await setup(unit);
        made.push(h);
        return { unit, h };
      },
    };
    afterEach(async () => {
      for (const h of made.splice(0)) await h.dispose();
    });
    contractConformance(run);
    connectionConformance(run);
  });
}
