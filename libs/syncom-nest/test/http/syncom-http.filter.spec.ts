import { Logger } from '@nestjs/common';
import { SyncomError } from 'syncom';
import { SyncomHttpFilter } from '../../src';

/** What the filter answers for `error`: the status and the JSON body. */
function answer(error: SyncomError): { status: number; body: Record<string, unknown> } {
  const out = { status: 0, body: {} as Record<string, unknown> };
  const res = { status: (s: number) => ((out.status = s), { json: (b: Record<string, unknown>) => void (out.body = b) }) };
  const host = { switchToHttp: () => ({ getResponse: () => res }) };
  new SyncomHttpFilter().catch(error, host as never);
  return out;
}

describe('SyncomHttpFilter: a SyncomError out of an HTTP handler', () => {
  it('a storage failure (500: IO_ERROR) answers its code and no message naming the store\'s files; the message goes to the log', () => {
    const logged: string[] = [];
    const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation((m: unknown) => void logged.push(String(m)));
    try {
      const { status, body } = answer(new SyncomError('IO_ERROR', "the log append failed (ENOSPC: no space left on device, write '/srv/notes/log/open/7.json')"));
      expect(status).toBe(500);
      expect(body).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'IO_ERROR', message: 'the storage failed; the server log has its message' });
      expect(JSON.stringify(body)).not.toContain('/srv');
      expect(logged.join('\n')).toContain("IO_ERROR: the log append failed (ENOSPC: no space left on device, write '/srv/notes/log/open/7.json')");
    } finally {
      spy.mockRestore();
    }
  });

  it('a caller\'s error keeps its message (409 KIND_CLASH names the right call)', () => {
    expect(answer(new SyncomError('KIND_CLASH', 'views is a counter: use inc()'))).toEqual({
      status: 409, body: { statusCode: 409, error: 'Conflict', code: 'KIND_CLASH', message: 'views is a counter: use inc()' },
    });
  });
  it('a missing record answers 404 NOT_FOUND, a SYNC_TIMEOUT 504, through a Fastify-style reply (status, then send) as through Express\'s json', () => {
    expect(answer(new SyncomError('NOT_FOUND', 'no record abc'))).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', message: 'no record abc' } });
    let sent: unknown;
    const reply = { status: (s: number) => ({ send: (b: unknown) => void (sent = { s, b }) }) };
    const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      // Its message quotes the hub's last refusal, which the caller of this app is not told.
      new SyncomHttpFilter().catch(new SyncomError('SYNC_TIMEOUT', 'not in sync with hub.internal:8000; its last error: UNAUTHORIZED 401: token t-123 unknown'), { switchToHttp: () => ({ getResponse: () => reply }) } as never);
    } finally {
      spy.mockRestore();
    }
    expect(sent).toEqual({ s: 504, b: { statusCode: 504, error: 'Gateway Timeout', code: 'SYNC_TIMEOUT', message: 'not in sync with the hub in time; the server log has why' } });
  });
});
