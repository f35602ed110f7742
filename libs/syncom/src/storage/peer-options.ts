import { SyncomError } from '../errors';
import type { Via } from './commit';
import type { PeerApplyOptions } from './peer';

const SIGNATURES: readonly unknown[] = [undefined, 'verify', 'require', false];

/**
 * applyPeerOps' options, checked: the page reads them again once its ops
 * have landed, too late to refuse the call.
 * @throws SyncomError INVALID_ARGUMENT
 */
export function peerOptions(o: unknown): PeerApplyOptions {
  const bad = (what: string) => new SyncomError('INVALID_ARGUMENT', `applyPeerOps() options: ${what}`);
  if (typeof o !== 'object' || o === null) throw bad('an object with via');
  const { via, signatures, feedHost, inScope } = o as Record<string, unknown>;
  if (typeof via !== 'object' || via === null) throw bad('via is required: { url, node } of the peer');
  const { url, node } = via as Record<string, unknown>;
  if (typeof url !== 'string' || typeof node !== 'string') throw bad('via is { url, node }, two strings');
  if (!SIGNATURES.includes(signatures)) throw bad("signatures is 'verify', 'require' or false");
  if (feedHost !== undefined && typeof feedHost !== 'string') throw bad('feedHost is a node id');
  if (inScope !== undefined && typeof inScope !== 'function') throw bad('inScope is a function');
  return { via: via as Via, signatures, feedHost, inScope } as PeerApplyOptions;
}
