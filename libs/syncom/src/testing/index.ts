export { createMemoryBackend, mulberry32 } from '../backend';
export type { MemoryBackend, CrashDamage } from '../backend';
