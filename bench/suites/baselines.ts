import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { processCpuUs } from '../lib/cpu';
import { inFlight, SharedRuns, timed } from '../lib/measure';
import { openNode } from '../lib/nodes';
import { makeRecord, randomIndexes } from '../lib/record';
import type { Benchmark, Profile, Suite } from '../lib/types';

export const SIGN_BASELINE = 'ed25519.sign';
export const VERIFY_BASELINE = 'ed25519.verify';
/** CPU (every thread of the process: the pool's and the main thread's) per signature checked, in the verify-only runs. */
export const VERIFY_CPU_BASELINE = 'ed25519.verify/cpu';
export const CLONE_BASELINE = 'map+structuredClone';
export const PARSE_BASELINE = 'json.parse.pages';
/** Entries in a snapshot page (the host unit's default pageSize). */
export const PAGE_SIZE = 500;
/** How many signature checks verifyOps keeps on libuv's pool (SIG-27). */
const VERIFY_WIDTH = 64;
/** Records in the reads store and in this baseline's Map. */
export const READ_STORE_SIZE = 100_000;

/** A header shaped like the one signOp signs (SIG-5), about 200 bytes. */
function sampleHeader(): Buffer {
  const b64 = (n: number) => 'A'.repeat(n);
  const header = JSON.stringify([1, b64(43), 12345, Date.now(), 'write', randomUUID(), '*', null, null, 'user-1234', b64(43)]);
  return Buffer.from(header, 'utf8');
}

/** crypto.sign over one header with a reused KeyObject: the signing-only rate. */
function signBench(ops: number): Benchmark {
  const { privateKey } = generateKeyPairSync('ed25519');
  const header = sampleHeader();
  return {
    name: SIGN_BASELINE, unit: 'ops/s', baseline: null, ops, bracket: 'measured',
    run: () => timed(() => {
      for (let i = 0; i < ops; i++) sign(null, header, privateKey);
    }),
  };
}

/**
 * crypto.verify in its callback form (libuv's pool), 64 in flight as verifyOps
 * runs them, one reused public KeyObject: the verify-only rate, the ceiling
 * for replicated ops. Its runs also give the CPU each check costs, on every
 * thread, the main thread's dispatch included: what the hub's ingest CPU is
 * held against.
 */
function verifyBenches(ops: number): Benchmark[] {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const header = sampleHeader();
  const sig = sign(null, header, privateKey);
  const check = () => new Promise<void>((resolve, reject) => {
    verify(null, header, publicKey, sig, (error, ok) => (error ? reject(error) : ok ? resolve() : reject(new Error('ed25519.verify: a good signature did not check'))));
  });
  const runs = new SharedRuns([VERIFY_BASELINE, VERIFY_CPU_BASELINE], async () => {
    const cpu = processCpuUs();
    const ms = await timed(() => inFlight(ops, VERIFY_WIDTH, check));
    return { ms, cpuPerOp: (processCpuUs() - cpu) / ops };
  });
  return [
    { name: VERIFY_BASELINE, unit: 'ops/s', baseline: null, ops, bracket: 'measured', run: async () => (await runs.take(VERIFY_BASELINE)).ms },
    { name: VERIFY_CPU_BASELINE, unit: 'µs/op', baseline: null, ops, run: async () => (await runs.take(VERIFY_CPU_BASELINE)).cpuPerOp },
  ];
}

/**
 * Real snapshot pages as they cross a memory link: the JSON text of the host
 * unit's answers to snapshot, 500 entries each, from a memory storage of 1,000
 * records (the bootstrap's record shape, one writer).
 */
async function snapshotPages(): Promise<string[]> {
  const s = await openNode('pages');
  try {
    await Promise.all(Array.from({ length: 2 * PAGE_SIZE }, (_, i) => s.insert(makeRecord(i))));
    const unit = s.sync.unit({ access: 'public', pageSize: PAGE_SIZE });
    const context = {};
    await unit.call('hello', { node: 'bench-pages', vector: {}, epoch: 'bench', schema: null, scopes: ['*'] }, context);
    const pages: string[] = [];
    let args: { token?: string; offset?: number } = {};
    for (;;) {
      const page = (await unit.call('snapshot', args, context)) as { token: string; next: number | null; entries?: unknown[] };
      if (page.entries?.length !== PAGE_SIZE) throw new Error(`json.parse.pages: a snapshot page of ${page.entries?.length} entries, not ${PAGE_SIZE}`);
      pages.push(JSON.stringify(page));
      if (page.next === null) return pages;
      args = { token: page.token, offset: page.next };
    }
  } finally {
    await s.close();
  }
}

/** JSON.parse of snapshot pages of 500 entries, per record: the floor of a bootstrap's decoding. */
function parseBench(ops: number): Benchmark {
  let pages: string[] | undefined;
  return {
    name: PARSE_BASELINE, unit: 'ops/s', baseline: null, ops, bracket: 'measured',
    run: async () => {
      const texts = pages ?? (pages = await snapshotPages());
      let sink = 0;
      const ms = await timed(() => {
        for (let i = 0; i < ops / PAGE_SIZE; i++) sink += (JSON.parse(texts[i % texts.length]) as { entries: unknown[] }).entries.length;
      });
      if (sink !== ops) throw new Error(`json.parse.pages: parsed ${sink} entries, not ${ops}`);
      return ms;
    },
  };
}

/** A Map lookup plus a structuredClone of the record, over 100k records: a floor for get(). */
function cloneBench(ops: number): Benchmark {
  let map: Map<string, unknown> | undefined;
  let keys: string[] = [];
  const picks = randomIndexes(ops, READ_STORE_SIZE, 7);
  const build = () => {
    keys = Array.from({ length: READ_STORE_SIZE }, () => randomUUID());
    map = new Map(keys.map((k, i) => [k, makeRecord(i)]));
    return map;
  };
  return {
    name: CLONE_BASELINE, unit: 'ops/s', baseline: null, ops, bracket: 'measured',
    run: async () => {
      const m = map ?? build();
      let sink = 0;
      const ms = await timed(() => {
        for (let i = 0; i < ops; i++) sink += (structuredClone(m.get(keys[picks[i]])) as { n: number }).n;
      });
      if (sink < 0) throw new Error('unreachable');
      return ms;
    },
  };
}

/** The baselines the other figures are divided by. */
export function baselineSuite(profile: Profile): Suite {
  return {
    benchmarks: [
      signBench(profile.quick ? 5_000 : 20_000),
      ...verifyBenches(profile.quick ? 5_000 : 20_000),
      cloneBench(profile.quick ? 50_000 : 200_000),
      parseBench(profile.quick ? 50_000 : 200_000),
    ],
  };
}
