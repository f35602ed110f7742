import { setVectorKey } from '../log/vector';
import { type Op, streamKey, type Vector } from '../op/types';

/**
 * advanceVector with the last stream key kept: a page's ops share one, and
 * making it anew for each op (a concatenation, then a lookup of a new
 * string among the property names) cost as much as the rest of the step.
 */
export class StreamKeys {
  private origin = '';
  private scope?: string;
  private from?: string;
  private key = '';

  /** Move a vector (in place) past an op. */
  advance(vector: Vector, op: Op): void {
    if (op.origin !== this.origin || op.scope !== this.scope || op.from !== this.from || !this.key) {
      this.origin = op.origin;
      this.scope = op.scope;
      this.from = op.from;
      this.key = streamKey(op.origin, op.scope, op.from);
    }
    if (!(vector[this.key] >= op.seq)) setVectorKey(vector, this.key, op.seq);
  }
}
