import { MAX_REMOTE_CODE, SyncomError } from 'syncom';
import { fromWireError, unwrapAnswer } from '../../src/link/socket-io-protocol';

/**
 * A hostile gateway's refusals over socket.io: the dialer's SyncomError keeps
 * a code only when ERROR_CODES lists it. Anything else (a 100 000-character
 * string, an inherited property name) becomes REMOTE_ERROR with the host's
 * string cut to MAX_REMOTE_CODE characters in `remoteCode`, so what callers
 * match on and what keys the dialer's metrics stays a closed, bounded set.
 */

function refusal(error: unknown): SyncomError {
  try {
    unwrapAnswer({ ok: false, error });
  } catch (e) {
    return e as SyncomError;
  }
  throw new Error('the refusal was taken as an answer');
}

describe('hostile gateway: error codes it invents', () => {
  it('an ack refusing with a 100 000-character code is REMOTE_ERROR, the code cut in remoteCode, the status kept', () => {
    const code = 'Q'.repeat(100_000);
    const e = refusal({ code, status: 429, message: 'slow down' });
    expect(e).toBeInstanceOf(SyncomError);
    expect({ code: e.code, status: e.status, remoteCode: e.remoteCode }).toEqual({ code: 'REMOTE_ERROR', status: 429, remoteCode: code.slice(0, MAX_REMOTE_CODE) });
  });

  it('inherited property names are no codes: __proto__, constructor, toString', () => {
    for (const code of ['__proto__', 'constructor', 'toString']) {
      expect([code, fromWireError({ code, status: 400 }).code]).toEqual([code, 'REMOTE_ERROR']);
    }
  });

  it('a refusal with no code, or a non-string one, is REMOTE_ERROR without remoteCode', () => {
    for (const error of [{ status: 500 }, { code: 42 }, { code: { length: 1e9 } }, null, 'refused']) {
      const e = fromWireError(error);
      expect([error, e.code, 'remoteCode' in e]).toEqual([error, 'REMOTE_ERROR', false]);
    }
  });

  it('a listed code (a hub socket cap at the handshake) stays, with its status', () => {
    const e = fromWireError({ code: 'SOCKETS_PER_TOKEN', status: 429, message: 'close one first' });
    expect({ code: e.code, status: e.status, message: e.message, remoteCode: e.remoteCode }).toEqual({
      code: 'SOCKETS_PER_TOKEN', status: 429, message: 'close one first', remoteCode: undefined,
    });
  });
});
