import { Logger } from '@nestjs/common';
import { SyncomError } from 'syncom';
import { SyncomErrorFilter } from '../src/syncom-error.filter';

/** What the filter answers for `error`: the status and the JSON body. */
function answer(error: SyncomError): { status: number; body: Record<string, unknown> } {
  const out = { status: 0, body: {} as Record<string, unknown> };
  const res = { status: (s: number) => ((out.status = s), { json: (b: Record<string, unknown>) => void (out.body = b) }) };
  const host = { switchToHttp: () => ({ getResponse: () => res }) };
  new SyncomErrorFilter().catch(error, host as never);
  return out;
}

describe('example-api: the SyncomError filter', () => {
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
});
