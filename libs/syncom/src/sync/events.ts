import type { SyncomError } from '../errors';
import type { SchemaInfo } from '../schema';

/** The events of storage.sync (Lifecycle and events). */
export type SyncEvents = {
  peer: [e: { url: string; connected: boolean; node: string | null; reconnected: boolean; schema: SchemaInfo | null }];
  sync: [e: { url: string; pushed: number; received: number; applied: number; skipped: number; duplicates: number; gaps: number; malformed: number; unsigned: number; forged: number }];
  bootstrap: [e: { url: string; records: number }];
  progress: [e: { url: string; received: number; total?: number }];
  error: [e: SyncomError];
  refused: [e: { node: string; reason: 'scope' | 'forged' | 'unsigned'; count: number }];
  limited: [e: { node: string; reason: string }];
  start: [];
  stop: [];
  node: [e: { url: string; action: 'add' | 'remove' | 'enable' | 'disable' }];
  connect: [e: { url: string }];
  /** A peer shares no wire version with this node: nothing further is exchanged with it (wire versions). */
  incompatible: [e: { peer: string; versions: number[] }];
  hello: [e: { node: string; scopes: string[]; schema: SchemaInfo | null }];
};

/** Every name of SyncEvents, for storage.sync.on() to check (the compiler keeps it whole). */
export const SYNC_EVENT_NAMES: Readonly<Record<keyof SyncEvents, 1>> = {
  peer: 1, sync: 1, bootstrap: 1, progress: 1, error: 1, refused: 1, limited: 1, start: 1, stop: 1, node: 1, connect: 1, incompatible: 1, hello: 1,
};
