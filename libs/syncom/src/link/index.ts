export { isSyncLink } from './contract';
export type { HostUnit, LinkEvent, SubscribeOptions, Subscription, SyncLink } from './contract';
export { createMemoryLink } from './memory-link';
export type { MemoryLink, MemoryLinkOptions, LinkFaults } from './memory-link';
export { LinkListeners } from './link-connection';
export { safely } from './link-wire';
