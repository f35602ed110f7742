import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { wsRefusal } from './syncom-refusal';

/**
 * Every syncom message is acknowledged: one sent without an ack callback is
 * refused (400 BAD_REQUEST, answered as an `exception` event) before it does
 * any work whose answer would go nowhere.
 */
@Injectable()
export class SyncomAckGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getArgs().some((arg) => typeof arg === 'function')) return true;
    throw wsRefusal('BAD_REQUEST', 400, 'every syncom message takes an ack callback (emitWithAck)');
  }
}
