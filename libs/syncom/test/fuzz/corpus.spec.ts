import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSyncomError, type Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { parseEventId } from '../../src/log';
import { checkOp, checkShape, type OpCheck, unpackOps } from '../../src/op';
import { checkHello } from '../../src/sync/protocol/hello';
import { readNdjson, readSnapshotPage } from '../../src/sync/protocol/snapshot-page';
import { readCaps, readVersions } from '../../src/sync/protocol/versions';
import { closeAll, hub, node } from '../sync/helpers';
import { type Case, expand } from './corpus';
import { describeError, probe, SLOW_MS } from './fuzz';

const corpus = (name: string): Case[] => JSON.parse(readFileSync(join(__dirname, 'corpus', `${name}.json`), 'utf8')) as Case[];

/** A decoder's verdict on an input: taken or refused (typed), or what went wrong. */
type Verdict = 'taken' | 'refused' | string;

const ofCheck = (c: OpCheck): Verdict => (c.ok ? 'taken' : ['OP_MALFORMED', 'SKEW'].includes(c.code) ? 'refused' : `untyped ${c.code}`);
const ofRead = (r: { ok: boolean; code?: string }): Verdict => (r.ok ? 'taken' : r.code === 'PAGE_FAILED' ? 'refused' : 'untyped');
function ofThrowing(fn: () => unknown, code: string): Verdict {
  try {
    fn();
    return 'taken';
  } catch (e) {
    return isSyncomError(e, code as never) ? 'refused' : `threw ${describeError(e)}`;
  }
}

const NOW = 1_800_000_000_000;
const DECODERS: Record<string, (c: Case, input: unknown) => Verdict> = {
  op: (_c, x) => {
    const [a, b] = [ofCheck(checkShape(x)), ofCheck(checkOp(x, { now: NOW }))];
    return a === 'taken' ? b : a;
  },
  'unpack-ops': (_c, x) => {
    const u = unpackOps(x);
    return u.malformed > 0 ? 'refused' : 'taken';
  },
  'event-id': (_c, x) => (parseEventId(x) ? 'taken' : 'refused'),
  versions: (_c, x) => (readVersions(x) && readCaps(x) ? 'taken' : 'refused'),
  hello: (_c, x) => ofThrowing(() => checkHello(x), 'BAD_HELLO'),
  'snapshot-page': (c, x) => ofRead(readSnapshotPage(x, c.offset ?? 0)),
  ndjson: (_c, x) => ofRead(readNdjson(x as string)),
};

describe('fuzz corpus: every past crasher and hand-picked nasty, replayed (GUAR-3, GUAR-5, PROTO-4, PROTO-7)', () => {
  for (const [name, decode] of Object.entries(DECODERS)) {
    describe(name, () => {
      for (const c of corpus(name)) {
        it(`${c.why} (${c.found}): ${c.expect}`, () => {
          const { outcome, ms } = probe((x) => decode(c, x), expand(c.input));
          if (outcome.threw) throw new Error(`threw ${describeError(outcome.error)}`);
          expect(outcome.value).toBe(c.expect);
          expect(ms).toBeLessThanOrEqual(SLOW_MS);
        });
      }
    });
  }

  describe('host', () => {
    let host: { s: Storage; unit: HostUnit };
    const ctx = {};
    beforeAll(async () => {
      host = await hub({ limits: { bytesPerPush: 1024 * 1024 } });
      const dialer = await node();
      await host.unit.call('hello', { node: dialer.id, vector: {}, epoch: 'e1', token: 't' }, ctx);
      await closeAll(dialer);
    });
    afterAll(() => closeAll(host.s));
    for (const c of corpus('host')) {
      it(`${c.method}: ${c.why} (${c.found}): ${c.expect}`, async () => {
        let verdict: Verdict;
        const start = process.cpuUsage();
        try {
          await host.unit.call(c.method as string, expand(c.input), ctx);
          verdict = 'taken';
        } catch (e) {
          const status = (e as { status?: unknown }).status;
          verdict = isSyncomError(e) && typeof status === 'number' && status >= 400 && status < 500 ? 'refused' : `threw ${describeError(e)}`;
        }
        const d = process.cpuUsage(start);
        expect(verdict).toBe(c.expect);
        expect((d.user + d.system) / 1000).toBeLessThanOrEqual(SLOW_MS * 3);
      });
    }
  });
});
