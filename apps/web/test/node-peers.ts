import type { KeyObject } from 'node:crypto';
import { io } from 'socket.io-client';
import { open, signOp, type Op, type Storage } from 'syncom';
import { createSocketIoLink } from 'syncom/socket.io';
import { newSigningKey } from 'syncom/testing';
import type { Verdicts } from './harness/page-kit';
import { untilRecords } from './harness/until-records';

/** A Node peer on the memory backend that dials over socket.io, as a browser tab does. */
export async function nodeDialer(path: string): Promise<Storage> {
  const connect = (node: { url: string; token?: string }) =>
    createSocketIoLink(io(node.url, { auth: { token: node.token }, transports: ['websocket'], reconnectionDelay: 50, reconnectionDelayMax: 200 }));
  return open({ path, backend: 'memory', sync: { connect } });
}

/** A writer that makes signed ops by hand, so a test can also make them wrong. */
export class OpWriter {
  private readonly signing = newSigningKey();
  private readonly key: KeyObject = this.signing.key;
  readonly id = this.signing.node;
  private seq = 0;

  /** A signed write of record `id`. */
  write(id: string, data: Record<string, unknown>): Op {
    return signOp({ origin: this.id, seq: ++this.seq, ts: Date.now(), type: 'write', id, data }, this.key);
  }
}

/** A Node dialer's verdicts, in the shape page-kit's Verdicts has; resolves once `count` ops were refused. */
export function nodeRefused(s: Storage, count: number): Promise<Verdicts> {
  const v: Verdicts = { applied: 0, forged: 0, unsigned: 0, malformed: 0, errors: [] };
  s.sync.on('error', (e) => v.errors.push(e.code));
  return new Promise((resolve) => {
    s.sync.on('sync', (e) => {
      for (const k of ['applied', 'forged', 'unsigned', 'malformed'] as const) v[k] += e[k];
      if (v.forged + v.unsigned + v.malformed >= count) resolve(v);
    });
  });
}

/** Resolves once `s` holds `count` records: the page kit's waiter (until-records.ts), on a Node dialer. */
export const nodeCount = (s: Storage, count: number): Promise<number> => untilRecords(s, count);
