import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { timed } from '../lib/measure';
import { makeRecord, randomIndexes } from '../lib/record';
import type { Benchmark, Profile, Suite } from '../lib/types';

export const SIGN_BASELINE = 'ed25519.sign';
export const CLONE_BASELINE = 'map+structuredClone';
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
    name: SIGN_BASELINE, unit: 'ops/s', baseline: null, ops,
    run: () => timed(() => {
      for (let i = 0; i < ops; i++) sign(null, header, privateKey);
    }),
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
    name: CLONE_BASELINE, unit: 'ops/s', baseline: null, ops,
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
    benchmarks: [signBench(profile.quick ? 5_000 : 20_000), cloneBench(profile.quick ? 50_000 : 200_000)],
  };
}
