import type { KeyObject } from 'node:crypto';
import { packOps, signOp, type PackedOp } from 'syncom';
import { newSigningKey } from 'syncom/testing';

/**
 * A node identity for tests that speak the socket.io wire by hand: an
 * Ed25519 key whose public half is the node id (as syncom's own nodes have),
 * and write ops signed with syncom's signOp, so a hub verifies and applies
 * them like any peer's.
 */
export class SignedWriter {
  readonly node: string;
  private readonly key: KeyObject;

  constructor() {
    ({ key: this.key, node: this.node } = newSigningKey());
  }

  /** The hello of a fresh node of this id. */
  hello(scopes: string[] = ['*']): { node: string; vector: object; epoch: string; schema: null; scopes: string[] } {
    return { node: this.node, vector: {}, epoch: 'e', schema: null, scopes };
  }

  /** The write of record `<node>:<seq>` with `data`, packed for a push. */
  write(seq: number, data: Record<string, unknown>, ts = Date.now()): PackedOp {
    return packOps([signOp({ origin: this.node, seq, ts, type: 'write', id: `${this.node}:${seq}`, data }, this.key)])[0];
  }
}
