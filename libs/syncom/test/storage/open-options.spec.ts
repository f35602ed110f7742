import { createMemoryBackend, open, type OpenOptions } from '../../src';

/** open() refuses with INVALID_ARGUMENT naming `option`, the message matching `says`; nothing is opened. */
async function refused(options: unknown, option: string, says: RegExp): Promise<void> {
  const e = await open(options as OpenOptions).then(async (s) => { await s.close(); return undefined; }, (x: unknown) => x);
  expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', option });
  expect((e as Error).message).toMatch(says);
}

const base = () => ({ path: 'db', backend: createMemoryBackend() });

describe('open() checks its options before it opens anything', () => {
  it('a value of the wrong type is refused, naming the option: durable "true" (a config value read from .env), a scope that is no function, numbers that are not counts', async () => {
    await refused({ ...base(), durable: 'true' }, 'durable', /durable must be true or false, not the string "true"/);
    await refused({ ...base(), sync: { scope: 'Note' } }, 'sync.scope', /sync\.scope must be a function/);
    await refused({ ...base(), sync: { pageSize: 0 } }, 'sync.pageSize', /positive integer, not number 0/);
    await refused({ ...base(), sync: { log: { rollAfter: '64' } } }, 'sync.log.rollAfter', /positive integer/);
    await refused({ ...base(), sync: { retention: 5 } }, 'sync.retention', /must be an object, not number 5/);
    await refused({ ...base(), backend: 'sqlite' }, 'backend', /'fs', 'memory' or a Backend object/);
    await refused({ ...base(), hooks: { beforeApply: true } }, 'hooks.beforeApply', /must be a function/);
    await refused({ path: '' }, 'path', /non-empty string/);
  });

  it('an unknown option is refused, with the option it most likely meant', async () => {
    await refused({ ...base(), durabel: true }, 'durabel', /unknown option durabel \(did you mean durable\?\)/);
    await refused({ ...base(), sync: { antiEntropy: 0 } }, 'sync.antiEntropy', /unknown option sync\.antiEntropy; sync takes connect, autoStart/);
    await refused({ ...base(), sync: { log: { roll: 4 } } }, 'sync.log.roll', /sync\.log takes rollAfter, segmentOps, lines/);
  });

  it('every documented option of the right type opens (undefined values are no options)', async () => {
    const s = await open({
      ...base(), actor: () => 'me', durable: false, now: Date.now, telemetry: false, hooks: { beforeApply: () => true }, schema: undefined,
      sync: {
        autoStart: false, maxOutbox: 0, pageSize: 100, pageBytes: Infinity, maxPageBytes: 1 << 24, signatures: 'verify', antiEntropyInterval: 0,
        scope: () => '*', retention: { ops: 0, days: 1.5 }, maxSkew: Infinity, log: { rollAfter: 8, segmentOps: Infinity, lines: true }, signLate: true,
        hooks: { beforeConnect: () => true, beforeBootstrap: () => true },
      },
    });
    await s.close();
  });
});
