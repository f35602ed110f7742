import type { Op } from '../../src/op/types';

/** An interleaving of streams in the order `picks` gives, keeping each origin's order, with the ops named by `dups` delivered twice. */
export function deliver(streams: Op[][], picks: number[], dups: number[] = []): Op[] {
  const pos = streams.map(() => 0);
  const out: Op[] = [];
  for (const p of picks) {
    const live = streams.map((s, i) => i).filter((i) => pos[i] < streams[i].length);
    if (live.length === 0) break;
    const i = live[p % live.length];
    out.push(streams[i][pos[i]++]);
    for (const d of dups) if (d === out.length && out.length > 1) out.push(out[d % (out.length - 1)]);
  }
  streams.forEach((s, i) => out.push(...s.slice(pos[i])));
  return out;
}
