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
