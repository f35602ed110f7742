import type { PipeTransform } from '@nestjs/common';
import { WsException } from '@nestjs/websockets';
import { breachOf, MAX_ENVELOPE_DEPTH } from './envelope-bounds';
import type { Envelope } from './envelope-schema';
import { wsRefusal } from './syncom-refusal';

export { MAX_ENVELOPE_DEPTH } from './envelope-bounds';
export { OpaqueArray } from './envelope-schema';

/**
 * The gateway's envelope check, one pipe per message body:
 * `@MessageBody(new SyncomValidationPipe(PushDto))`. A message its
 * envelope refuses, or whose reconcile message nests deeper than any
 * does, is refused as a WsException `{ code: 'BAD_REQUEST', status: 400 }`
 * the exception filter answers on the ack; otherwise the handler gets the
 * whitelisted envelope (fields it does not name dropped unread), its opaque
 * fields (a push's ops, a hello's vector, a reconcile message) the very
 * values that came. Each check is one linear pass and copies nothing deep:
 * untrusted input never goes through class-transformer, whose copy of an
 * object with many keys costs superlinear time.
 */
export class SyncomValidationPipe<T> implements PipeTransform<unknown, T> {
  constructor(readonly envelope: Envelope<T>) {}

  transform(value: unknown): T {
    try {
      return this.read(value);
    } catch (e) {
      if (e instanceof WsException) throw e;
      // A reader that throws is a fault of ours, never a crash: the message is refused like any malformed one.
      throw wsRefusal('BAD_REQUEST', 400, 'malformed message');
    }
  }

  private read(value: unknown): T {
    const r = this.envelope.read(value);
    if (!r.ok) throw wsRefusal('BAD_REQUEST', 400, `${this.envelope.name}: ${r.why}`);
    for (const key of this.envelope.deep) {
      const breach = breachOf((r.value as Record<string, unknown>)[key], { maxDepth: MAX_ENVELOPE_DEPTH - 1, maxEntries: Infinity });
      if (breach === 'depth') throw wsRefusal('BAD_REQUEST', 400, `the message nests deeper than ${MAX_ENVELOPE_DEPTH} levels`);
    }
    return r.value;
  }
}
