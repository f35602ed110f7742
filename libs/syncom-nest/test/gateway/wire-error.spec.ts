import { WsException } from '@nestjs/websockets';
import { ERROR_CODES, SyncomError } from 'syncom';
import { toWireError, wsRefusal } from '../../src/gateway/syncom-refusal';

/** What the gateway's filter sends for a thrown value: codes and statuses from ERROR_CODES. */
describe('toWireError', () => {
  it('a SyncomError without a status answers with its code\'s listed status', () => {
    expect(toWireError(new SyncomError('SNAPSHOT_EXPIRED', 'ended'))).toEqual({ code: 'SNAPSHOT_EXPIRED', status: 410, message: 'ended' });
  });

  it('a SyncomError\'s own status wins; a code listed without one is 500', () => {
    expect(toWireError(new SyncomError('UNSIGNED', 'no key', { status: 403 })).status).toBe(403);
    expect(toWireError(new SyncomError('KIND_CLASH', 'counter')).status).toBe(500);
  });

  it('a guard\'s refusal and a guard that returned false answer with listed codes', () => {
    expect(toWireError(wsRefusal('SCOPES', 403, 'not granted'))).toEqual({ code: 'SCOPES', status: 403, message: 'not granted' });
    const forbidden = toWireError(new WsException('Forbidden resource'));
    expect([forbidden.code, forbidden.status]).toEqual(['FORBIDDEN', ERROR_CODES.FORBIDDEN.status]);
  });

  it('anything else is INTERNAL with its listed status and no detail', () => {
    expect(toWireError(new TypeError('secret path /etc'))).toEqual({ code: 'INTERNAL', status: ERROR_CODES.INTERNAL.status, message: 'the host failed to handle this message' });
  });
  it('the host\'s own storage failing keeps its code and status, not its message, which names the store\'s files (the filter logs it)', () => {
    const e = new SyncomError('IO_ERROR', "the log append failed (EROFS: read-only file system, open '/srv/hub/log/open/231.json')");
    expect(toWireError(e)).toEqual({ code: 'IO_ERROR', status: 500, message: 'the host failed to store or read this: its log has the cause' });
    expect(toWireError(new SyncomError('UNPERSISTED', "ENOSPC '/srv/hub/records/3.json'")).message).not.toContain('/srv');
    // A refusal below 500 is the peer's to read, whatever its group.
    expect(toWireError(new SyncomError('INVALID_ARGUMENT', 'a page of the wrong shape', { status: 400 })).message).toBe('a page of the wrong shape');
  });
});
