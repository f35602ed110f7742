/**
 * What the bench and the peer children (bench/peers/<system>/*) say to each
 * other over the IPC channel of lib/processes.ts. Every system speaks it the
 * same way, so the bench's line (line.ts) knows no system.
 */

/** Facts a client's open answers that the other client needs: the writer's node id, the document's url. */
export type PeerInfo = Record<string, string>;

/** A server child's `start` answer: where its clients connect. */
export interface ServerStarted {
  /** The url a client dials (ws:// or http:// on 127.0.0.1). */
  url: string;
  /** The token a client presents, where the server checks one (syncom's hub). */
  token?: string;
}

/** The bench's `open` request to a client child. */
export interface OpenArgs {
  /** The server's url and token, as its `start` answered. */
  url: string;
  token?: string;
  role: 'writer' | 'reader';
  /** For the reader: what the writer's open answered. */
  writer?: PeerInfo;
  /** syncom only: signing and verifying on ('verify') or off (false), as the server's. */
  signatures?: 'verify' | false;
}

/** A client's `write` answer: monotonic-clock stamps (lib/child-server.ts clockMs) of the first write and the last. */
export interface Written {
  startedAt: number;
  endedAt: number;
}

/** Records id-ed `r<i>`, in the one table (or map, or document key) every system writes. */
export const TABLE = 'notes';

/** The id of record i of a run. */
export const recordId = (i: number): string => `r${i}`;

/**
 * How many changes a writer makes before it yields to the event loop (the
 * peers' writes are synchronous calls), and how many syncom keeps in flight
 * (its writes are promises): the same pace, 100, as the other replication
 * figures.
 */
export const WINDOW = 100;

/** The batched workload (bench/README.md, "Peers"): fields of a record, and records of one transaction. */
export const FIELDS = 10;
export const RECORDS_PER_TX = 10;

/** Record i of the batched workload: FIELDS register fields, one write each (100 writes per transaction). */
export function wideRecord(i: number): Record<string, string | number> {
  const record: Record<string, string | number> = {};
  for (let f = 0; f < FIELDS; f++) record[`f${f}`] = f === 0 ? i : `field ${f} of note ${i}`;
  return record;
}
