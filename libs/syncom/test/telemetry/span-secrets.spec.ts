import { SpanStatusCode } from '@opentelemetry/api';
import { SyncomError } from '../../src';
import { ATTRS, SPANS } from '../../src/telemetry';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { record, wrapUnit } from '../sync/scenario-helpers';
import { Otel } from './otel';

/**
 * A span's exception is exported to whatever collects the traces, a log in
 * all but name. A host words its refusals as it likes and may quote the
 * token it was sent (docs/hub-security.md, The start): the span of the
 * refused call carries the code and the host's words with each registered
 * token as `<token>`, as the hub's log and the Nest logger write them.
 */

const URL = 'memory://hub';
const TOKEN = 'tok-SECRET-77ad1e';

describe('telemetry: a refusal quoting the token', () => {
  let otel: Otel;
  beforeEach(() => { otel = new Otel(); });
  afterEach(() => otel.shutdown());

  it('the dialer\'s failed hello span records the host\'s message without the token', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, wrapUnit(h.unit, (method, _args, _context, next) => {
      if (method !== 'hello') return next();
      return Promise.reject(new SyncomError('UNAUTHORIZED', `token ${TOKEN} is not known here`, { status: 401 }));
    }));
    const d = await dialer(net, { telemetry: otel.telemetry });
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: TOKEN });
    await until(() => errors.length > 0, [d]);
    const [span] = otel.spans(SPANS.hello, { [ATTRS.role]: 'dialer' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'UNAUTHORIZED' });
    const exported = JSON.stringify({ events: span.events, attributes: span.attributes, status: span.status });
    expect(exported).toContain('is not known here');
    expect(exported).not.toContain(TOKEN);
    expect(exported).toContain('<token>');
    await closeAll(d, h.s);
  });
});
