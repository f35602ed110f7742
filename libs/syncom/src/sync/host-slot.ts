import { SyncomError } from '../errors';
import type { SyncContext } from './context';
import type { SyncUnit, UnitOptions } from './host/unit';

/** What makes a host unit: put here by whichever entry carries the hosting side. */
export type MakeUnit = (ctx: SyncContext, options: UnitOptions) => SyncUnit;

let make: MakeUnit | undefined;

/**
 * The manager reaches the host unit only through this slot, so an entry that
 * never fills it (the browser's, where a page dials and seldom hosts) leaves
 * host/ out of its bundle. `syncom` fills it at load, as does `syncom/host`
 * (host-install.ts).
 */
export function installHostUnit(m: MakeUnit): void {
  make = m;
}

/** @throws SyncomError UNSUPPORTED where no entry installed the host unit. */
export function makeUnit(ctx: SyncContext, options: UnitOptions): SyncUnit {
  return (make ?? fallback())(ctx, options);
}

/**
 * Under Node with none installed (the engine's modules loaded without an
 * entry, as tests do) the host unit is loaded as platform() loads Node's
 * platform: by an indirect require that bundlers leave out of a browser build.
 */
function fallback(): MakeUnit {
  const node = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
  const load = node && typeof require === 'function' ? require : undefined;
  if (!load) throw new SyncomError('UNSUPPORTED', 'storage.sync.unit() needs the hosting side, which the browser entry leaves out: import the syncom/host entry once to add it');
  load('../host-install');
  return make as MakeUnit;
}
