import { CaptureLogger } from '../../../libs/syncom-nest/test/helpers/capture-logger';
import { RawClient, refusalOf } from './raw-client';
import { TestHubs } from './test-hubs';

/**
 * A token holder can be refused at SYNCOM_SOCKETS_PER_TOKEN as fast as it
 * opens handshakes: each refusal wrote its own warning, so the hub's log
 * grew with every attempt (the gateway's own refusals were sampled already).
 */
describe('apps/hub: the socket cap\'s refusals in the log (hostile, e2e)', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  it('SYNCOM_SOCKETS_PER_TOKEN: 30 refused handshakes write one warning (a warning of the kind at most every 10 s, the next one counting those left out)', async () => {
    const logger = new CaptureLogger();
    const hub = await hubs.start('cap-log', { limits: { socketsPerToken: 1 } }, logger);
    const held = await RawClient.connect(hub.syncomUrl, 't');
    const refusals = 30;
    for (let i = 0; i < refusals; i++) expect((await refusalOf(hub.syncomUrl, 't'))?.data?.code).toBe('SOCKETS_PER_TOKEN');
    const lines = logger.of('Hub').filter((m) => m.startsWith('refused a socket'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^refused a socket from \S+: its token holds 1 sockets already$/);
    held.close();
  });
});
