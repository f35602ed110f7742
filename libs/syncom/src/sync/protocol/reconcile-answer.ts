import type { Vector } from '../../op/types';
import type { Message } from '../../reconcile';

/** What `reconcile` answers; on `start`, where the set was taken (as a first snapshot page). */
export interface ReconcileAnswer {
  msg: Message;
  vector?: Vector;
  eventId?: string;
}
