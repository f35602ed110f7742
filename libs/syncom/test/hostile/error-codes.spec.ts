import { isSyncomErrorCode, MAX_REMOTE_CODE, type SyncomError } from '../../src';
import { MAX_REMOTE_MESSAGE } from '../../src/errors';
import type { HostUnit } from '../../src/link';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';

/**
 * A hostile host answers with error codes of its own making. Codes are API on
 * this side: callers match on them and the dialer keys its limit metric by
 * them (syncom.ops.limited's `reason`), so a code the host invents must not
 * pass through: it arrives as REMOTE_ERROR (a listed, bounded code) with the
 * host's string cut to MAX_REMOTE_CODE characters in `remoteCode`.
 */

const URL = 'memory://hostile';

/** The hub's unit, except that every call named `method` is refused with `error`. */
function refusing(unit: HostUnit, method: string, error: unknown): HostUnit {
  return {
    access: unit.access,
    call: (m, args, context) => (m === method ? Promise.reject(error) : unit.call(m, args, context)),
    subscribe: (m, args, context, options) => unit.subscribe(m, args, context, options),
    stream: (id, context) => unit.stream(id, context),
    disconnect: (context) => unit.disconnect(context),
  };
}

async function refusedPush(error: unknown): Promise<SyncomError> {
  const net = new Net();
  const h = await hub();
  net.units.set(URL, refusing(h.unit, 'push', error));
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => d.sync.peers()[0]?.connected === true, [d]);
  await d.insert({ a: 1 });
  await until(() => errors.length > 0, [d]);
  await closeAll(d, h.s);
  return errors[0];
}

describe('hostile host: error codes it invents', () => {
  it('HOST-14: a 429 push refusal with a 100 000-character code reaches the sync error event as REMOTE_ERROR, the string cut in remoteCode', async () => {
    const code = `LIMIT_${'Z'.repeat(100_000)}`;
    const e = await refusedPush({ code, status: 429, message: 'slow down' });
    expect(isSyncomErrorCode(e.code)).toBe(true);
    expect({ code: e.code, status: e.status, url: e.url, remoteCode: e.remoteCode }).toEqual({
      code: 'REMOTE_ERROR', status: 429, url: URL, remoteCode: code.slice(0, MAX_REMOTE_CODE),
    });
  });

  it('a refusal whose code is an inherited property name (__proto__, toString) is no listed code either', async () => {
    const e = await refusedPush({ code: '__proto__', status: 400, message: 'no' });
    expect({ code: e.code, remoteCode: e.remoteCode }).toEqual({ code: 'REMOTE_ERROR', remoteCode: '__proto__' });
  });

  it('a refusal with a listed code keeps it, with no remoteCode', async () => {
    const e = await refusedPush({ code: 'OPS_PER_PUSH', status: 413, message: 'too many' });
    expect({ code: e.code, status: e.status, remoteCode: e.remoteCode }).toEqual({ code: 'OPS_PER_PUSH', status: 413, remoteCode: undefined });
  });

  it('HOST-14: a refusal worded at a megabyte reaches the error event cut at a space before MAX_REMOTE_MESSAGE: a word across the cut is gone whole', async () => {
    const secret = 'tok3n-that-crosses-the-cut';
    const words = `${'no '.repeat((MAX_REMOTE_MESSAGE - 10) / 3)}${secret} ${'x'.repeat(1_000_000)}`;
    const e = await refusedPush({ code: 'PAGE_FAILED', status: 400, message: words });
    expect(e.code).toBe('PAGE_FAILED');
    expect(e.message.length).toBeLessThan(MAX_REMOTE_MESSAGE + 64);
    expect(e.message).toMatch(new RegExp(`^(no )+… \\(${words.length} characters, cut\\)$`));
    expect(e.message).not.toContain(secret.slice(0, 4));
  });
});
