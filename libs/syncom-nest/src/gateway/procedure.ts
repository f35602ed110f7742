import { type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { peerOf } from './socket-peer';

/** The handler metadata key under which each procedure message of the gateway names its procedure. */
export const SYNCOM_PROCEDURE = 'syncom:procedure';

/** The unit procedures the gateway answers: the spec's four, and the set reconciliation's two (docs/nest.md). */
export type SyncomProcedureName = 'hello' | 'push' | 'changes' | 'snapshot' | 'reconcile' | 'records';

/** What an app's guard or interceptor on the gateway reads of a procedure message (syncomProcedureOf). */
export interface SyncomProcedure {
  /** The procedure the message calls. */
  procedure: SyncomProcedureName;
  /** The host unit's `meta` (the gateway option), as the unit keeps it, the same for every procedure; undefined when none was given. */
  meta: Record<string, unknown> | undefined;
}

/** Marks a gateway handler as the procedure `name` (readable with Nest's Reflector under SYNCOM_PROCEDURE). */
export const Procedure = (name: SyncomProcedureName): MethodDecorator => SetMetadata(SYNCOM_PROCEDURE, name);

/**
 * The procedure a gateway message calls and the unit's `meta`, for a guard or
 * interceptor the app put on the gateway (`gateway.guards`, `gateway.interceptors`):
 * what a wrpc request hook reads as `context.procedure.meta` (HOST-8). Undefined for
 * anything else: an HTTP request, another gateway's message, and the gateway's
 * `unsubscribe` and `chunk`, which carry on a feed or a stream a procedure opened.
 *
 * @example
 * canActivate(context: ExecutionContext) {
 *   const call = syncomProcedureOf(context);
 *   return call?.procedure !== 'push' || call.meta?.readOnly !== true;
 * }
 */
export function syncomProcedureOf(context: ExecutionContext): SyncomProcedure | undefined {
  if (context.getType() !== 'ws') return undefined;
  const procedure = Reflect.getMetadata(SYNCOM_PROCEDURE, context.getHandler()) as SyncomProcedureName | undefined;
  if (procedure === undefined) return undefined;
  const unit = peerOf(context.switchToWs().getClient<Socket>()).unit;
  return { procedure, meta: unit?.meta };
}
