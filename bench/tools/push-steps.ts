import { open, packOps, unpackOps, checkOp, canonicalJson } from '../../libs/syncom/src';
import { sigHeader, digestOp, SORTED_PAYLOAD_FIELDS } from '../../libs/syncom/src/op/sign';
import { canonicalPick } from '../../libs/syncom/src/op/canonical';
import { payloadOf } from '../../libs/syncom/src/op/payload';
import { platform } from '../../libs/syncom/src/platform';
import { mainThreadCpuUs } from '../lib/cpu';
import { memoryBackend } from '../lib/nodes';
import { makeRecord } from '../lib/record';

/**
 * Main-thread CPU per op of each step a host takes on a pushed op before it
 * is verified and applied (unpack, shape and skew check, digest, signed
 * header), measured on 2,000 real signed ops. A/B tool for op/:
 *
 *   node -r ts-node/register/transpile-only bench/tools/push-steps.ts
 */
async function main(): Promise<void> {
  const s = await open({ path: 'p', backend: memoryBackend(), sync: { retention: { ops: Number.MAX_SAFE_INTEGER } } });
  for (let k = 0; k < 2000; k += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => s.insert({ ...makeRecord(k + j), $type: 'p0' })));
  await s.replica.idle();
  const ops = s.replica.read(0).map((e) => e.op).filter((op) => op.origin === s.id);
  const text = JSON.stringify(packOps(ops));
  await s.close();
  const steps: Record<string, () => unknown> = {
    'JSON.parse': () => JSON.parse(text),
    unpackOps: () => unpackOps(JSON.parse(text)),
    'unpack+checkOp': () => unpackOps(JSON.parse(text)).ops.map((op) => checkOp(op)),
    'digestOp': () => ops.map((op) => digestOp(op, op.nonce as string)),
    'canonicalJson': () => ops.map((op) => canonicalJson(payloadOf(op))),
    'canonicalPick': () => ops.map((op) => canonicalPick(op, SORTED_PAYLOAD_FIELDS)),
    'sigHeader': () => ops.map((op) => sigHeader(op)),
    'sig decode+encode': () => ops.map((op) => platform().base64url(platform().fromBase64url(op.sig as string))),
    'header bytes': () => ops.map((op) => platform().utf8(sigHeader(op))),
  };
  for (let round = 0; round < 3; round++) {
    const line: string[] = [];
    for (const [name, fn] of Object.entries(steps)) {
      const m0 = mainThreadCpuUs() ?? 0;
      for (let i = 0; i < 20; i++) fn();
      line.push(`${name} ${(((mainThreadCpuUs() ?? 0) - m0) / 20 / ops.length).toFixed(2)}`);
    }
    console.log(line.join(' | '));
  }
}

void main();
