import fc from 'fast-check';
import { createMemoryLink, type Storage } from '../../src';
import type { MemoryLink } from '../../src/link';
import { closeAll, node, records, until } from './helpers';

const N = 5;
const SEEDS = Number(process.env.MESH_SEEDS ?? 100);
// npm run test:hunt sets MESH_SEEDS higher.

/** The main streams of a vector: bootstrap streams (origin<from) differ by design (BOOT-10). */
const mainVector = (s: Storage) => Object.fromEntries(Object.entries(s.parts.log.vector).filter(([k]) => !k.includes('<')).sort());

async function mesh(seed: number): Promise<{ nodes: Storage[]; links: MemoryLink[] }> {
  const nodes: Storage[] = [];
  const links: MemoryLink[] = [];
  const units: ReturnType<Storage['sync']['unit']>[] = [];
  const connect = (n: { url: string }) => {
    const link = createMemoryLink(units[Number(n.url.slice(7))], { faults: { seed: seed * 31 + links.length } });
    links.push(link);
    return link;
  };
  for (let i = 0; i < N; i++) {
    const s = await node({ sync: { connect, pageSize: 7 } });
    nodes.push(s);
    units.push(s.sync.unit({ access: 'public' }));
  }
  for (let i = 0; i < N; i++) for (let j = i + 1; j < N; j++) await nodes[i].sync.addNode({ url: `memory:${j}` });
  return { nodes, links };
}

type Step = { at: number; kind: 'insert' | 'update' | 'inc' | 'add' | 'remove' | 'delete'; rec: number; v: number }
  | { at: number; kind: 'cut' | 'restore' | 'faults'; link: number; drop: number; dup: number; delay: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ at: fc.nat(N - 1), kind: fc.constantFrom('insert', 'update', 'inc', 'add', 'remove', 'delete'), rec: fc.nat(3), v: fc.nat(4) }) as fc.Arbitrary<Step> },
  { weight: 1, arbitrary: fc.record({ at: fc.constant(0), kind: fc.constantFrom('cut', 'restore', 'faults'), link: fc.nat(9), drop: fc.double({ min: 0, max: 0.3, noNaN: true }), dup: fc.double({ min: 0, max: 0.5, noNaN: true }), delay: fc.nat(3) }) as fc.Arbitrary<Step> },
);

/**
 * One write. Counters live on c0/c1, created once by node 0 and never reset,
 * because a counter incremented on both sides of a concurrent reset is the
 * documented non-converging case (RESET-6); fields keep one kind (RESET-10).
 */
async function play(s: Storage, st: Extract<Step, { rec: number }>) {
  const id = `r${st.rec}`;
  const ignore = () => undefined;
  if (st.kind === 'inc') return s.inc(`c${st.rec % 2}`, 'n', st.v).catch(ignore);
  const exists = await s.has(id);
  if (st.kind === 'insert' || (!exists && st.kind !== 'delete' && st.kind !== 'remove')) return s.set(id, { v: st.v, by: s.id.slice(0, 4) });
  if (st.kind === 'update') return s.update(id, { v: st.v }).catch(ignore);
  if (st.kind === 'add') return s.add(id, 'tags', [st.v]).catch(ignore);
  if (st.kind === 'remove') return s.remove(id, 'tags', [st.v]).catch(ignore);
  return s.delete(id);
}

describe('a five-node mesh under faults', () => {
  it('GUAR-1 GUAR-2 PROTO-8 PROTO-9 OPT-10 LINK-9: after healing every node holds equal records and vectors; no acknowledged write is missing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1e9 }), fc.array(step, { minLength: 10, maxLength: 40 }), async (seed, steps) => {
        const phase = { at: 'setup' };
        const watchdog = setTimeout(() => console.error(`seed ${seed} hangs in ${phase.at}`), 8_000);
        const { nodes, links } = await mesh(seed);
        const written: { s: Storage; op: string }[] = [];
        await nodes[0].set('c0', {});
        await nodes[0].set('c1', {});
        try {
          for (const st of steps) {
            phase.at = `step ${JSON.stringify(st)}`;
            if ('rec' in st) {
              const before = nodes[st.at].parts.log.head;
              await play(nodes[st.at], st);
              if (nodes[st.at].parts.log.head > before) written.push({ s: nodes[st.at], op: `${nodes[st.at].id}:${nodes[st.at].parts.log.head}` });
            } else {
              const l = links[st.link % links.length];
              if (st.kind === 'cut' && l.connected) l.cut();
              else if (st.kind === 'restore' && !l.connected) l.restore();
              else if (st.kind === 'faults') l.faults({ seed: seed + st.link, drop: st.drop, duplicate: st.dup, delay: st.delay });
            }
          }
          phase.at = 'heal';
          for (const l of links) { l.faults({}); if (l.connected) l.cut(); l.restore(); }
          phase.at = 'settle';
          await Promise.all(links.map((l) => l.settle()));
          phase.at = 'sync';
          await Promise.all(nodes.map((s) => s.sync.sync()));
          phase.at = 'converge';
          const converged = async () => {
            const first = JSON.stringify([await records(nodes[0]), mainVector(nodes[0])]);
            for (const s of nodes.slice(1)) if (JSON.stringify([await records(s), mainVector(s)]) !== first) return false;
            return true;
          };
          await until(converged, nodes, 5_000).catch(async (e) => {
            const short = (x?: string) => x?.slice(0, 4);
            const views = await Promise.all(nodes.map(async (s) => Object.fromEntries((await records(s)).map(([id, d]) => [id, JSON.stringify(d)]))));
            const ids = [...new Set(views.flatMap((v) => Object.keys(v)))].filter((id) => views.some((v) => v[id] !== views[0][id]));
            for (const s of nodes) console.log(short(s.id), ids, JSON.stringify(s.parts.log.read(0).filter((l) => ids.includes(l.op.id) || (l.op.type === 'advance')).map((l) => [l.pos, l.op.type, short(l.op.origin), l.op.seq, l.op.ts % 100000, short(l.op.from), l.op.vector ? Object.fromEntries(Object.entries(l.op.vector).map(([k, v]) => [k.slice(0, 4) + (k.includes('<') ? '<' + k.split('<')[1].slice(0, 4) : ''), v])) : JSON.stringify(l.op.data ?? l.op.value ?? null).slice(0, 80), l.flags])), JSON.stringify(ids.map((id) => s.parts.committer.committed.get(id))));
            throw new Error(`seed ${seed}: ${e.message}\n${JSON.stringify(await Promise.all(nodes.map(async (s) => [await records(s), mainVector(s), s.sync.peers().map((p) => [p.connected, p.behind, p.stuck, p.lastError?.code])])), null, 1)}`);
          });
          for (const { s } of written) {
            const own = s.parts.log.vector[s.id] ?? 0;
            for (const other of nodes) expect(other.parts.log.vector[s.id] ?? 0).toBe(own);
          }
        } finally {
          phase.at = 'close';
          await closeAll(...nodes);
          clearTimeout(watchdog);
        }
      }),
      { numRuns: SEEDS, endOnFailure: true },
    );
  }, 300_000);
});
