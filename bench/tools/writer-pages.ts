import type { LogEntry } from '../../libs/syncom/src/log/op-log';
import { packedBytes, packOps } from '../../libs/syncom/src/op';
import type { Op } from '../../libs/syncom/src/op/types';
import type { Replica } from '../../libs/syncom/src/storage/replica';
import { PAGE_BYTES } from '../../libs/syncom/src/sync/host/page-text';
import { SharedReads } from '../../libs/syncom/src/sync/host/shared-pages';
import { frameEnds } from '../../libs/syncom/src/sync/protocol/frames';

/**
 * A writer's own page at the hub, in one process: every op of an `ops`-op
 * read comes from a different node, so each of those nodes' feeds gets the
 * read minus its own op. "old" pages it as the hub did before pages were cut
 * from the read's bytes (the writer's ops packed, `{ value, eventId }`
 * stringified, Buffer.from); "spliced" takes SharedReads' page and its bytes
 * as the gateway sends them. Prints µs per writer's page, alternating:
 *
 *   node -r ts-node/register/transpile-only bench/tools/writer-pages.ts [ops] [rounds]
 */

const N = Number(process.argv[2] ?? 60);
const ROUNDS = Number(process.argv[3] ?? 200);

/** One op as the load tool's writers make them: a small record, signed. */
function entry(i: number): LogEntry {
  const op = {
    origin: `node-${String(i).padStart(40, 'x')}`, seq: 1, ts: 1_700_000_000_000 + i, type: 'write', id: `rec-${i}-${'y'.repeat(20)}`, scope: '*',
    data: { peer: i, n: 1, at: 1_700_000_000_000 + i }, sig: 's'.repeat(86), digest: 'd'.repeat(43), nonce: 'n'.repeat(22),
  } as Op;
  return { pos: i + 1, flags: 0, op };
}

const entries = Array.from({ length: N }, (_, i) => entry(i));
const log = { head: N, read: (pos: number, n: number) => entries.slice(pos, pos + n) } as unknown as Replica;
const keep = (node: string) => (e: LogEntry) => e.op.origin !== node && e.op.from !== node;
const VALUE = Buffer.from('"value":');
const END = Buffer.from(',"eventId":"e-2"}]');

function old(): number {
  let bytes = 0;
  for (const w of entries) {
    const relevant = entries.filter(keep(w.op.origin));
    const ends = frameEnds(relevant.map((e) => packedBytes(e.op)), 500, 4 << 20);
    for (let k = 0; k < ends.length; k++) {
      const page = { ops: packOps(relevant.slice(k === 0 ? 0 : ends[k - 1], ends[k]).map((e) => e.op)), prev: 'p-1' };
      bytes += Buffer.from(`${JSON.stringify({ value: page, eventId: 'e-2' }).slice(1)}]`).length;
    }
  }
  return bytes;
}

function spliced(): number {
  let bytes = 0;
  const shared = new SharedReads();
  for (const w of entries) {
    const read = shared.read({ log, pos: 0, scopes: ['*'], pageSize: 500, pageBytes: 4 << 20 }, w.op.origin, keep(w.op.origin));
    for (let k = 0; k < read.ends.length; k++) {
      const page = read.page(k, 'p-1') as unknown as Record<symbol, () => Uint8Array[]>;
      bytes += Buffer.concat([VALUE, ...page[PAGE_BYTES](), END]).length;
    }
  }
  return bytes;
}

for (let run = 0; run < 3; run++) {
  for (const [name, f] of [['old', old], ['spliced', spliced]] as const) {
    const t0 = performance.now();
    let b = 0;
    for (let r = 0; r < ROUNDS; r++) b += f();
    const us = ((performance.now() - t0) * 1000) / ROUNDS / N;
    console.log(`${name.padEnd(8)} ${N} writers, a ${N}-op read: ${us.toFixed(1)} µs a writer's page of ${(b / ROUNDS / N).toFixed(0)} bytes`);
  }
}
