import { createMemoryLink, type SyncomError } from '../../src';
import { SyncomError as Err } from '../../src/errors';
import type { SyncLink } from '../../src/link/contract';
import { closeAll, hub, node, until } from './helpers';

const URL = 'memory://h';

/**
 * A memory link whose calls fail as `script` says, in order: each entry is
 * the method it fails and the error, taken by the first call of that method
 * once the entries before it were. The connection stays up throughout, as a
 * link that does not cycle after a failed call leaves it.
 */
function scripted(link: SyncLink, script: [method: string, error: () => Error][]): SyncLink & { failed: string[] } {
  const out = Object.create(link) as SyncLink & { failed: string[] };
  out.failed = [];
  out.call = (method: string, args: unknown) => {
    const next = script[0];
    if (next && next[0] === method) {
      script.shift();
      out.failed.push(method);
      return Promise.reject(next[1]());
    }
    return link.call(method, args);
  };
  return out;
}

const lost = () => new Err('LINK_TIMEOUT', 'lost by the test');

/** A hub and a node whose one link fails as `script` says; resolves once both hold each other's write. */
async function syncsDespite(script: [string, () => Error][]) {
  const h = await hub();
  const links: (SyncLink & { failed: string[] })[] = [];
  const connect = () => {
    const link = scripted(createMemoryLink(h.unit), links.length === 0 ? script : []);
    links.push(link);
    return link;
  };
  const d = await node({ sync: { connect, antiEntropyInterval: 0 } });
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  await d.sync.addNode({ url: URL, token: 't' });
  const mine = await d.insert({ from: 'd' });
  const theirs = await h.s.insert({ from: 'h' });
  await until(async () => (await h.s.has(mine)) && (await d.has(theirs)), [d, h.s]);
  expect(links).toHaveLength(1);
  expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true });
  await closeAll(d, h.s);
  return { failed: links[0].failed, errors };
}

describe('a hello that fails on a link that stays up', () => {
  it('PROTO-13: lost (LINK_TIMEOUT), it is sent again a second later (the link never reconnects, so nothing else would greet it), and the two nodes sync', async () => {
    const { failed, errors } = await syncsDespite([['hello', lost]]);
    expect(failed).toEqual(['hello']);
    // A lost call on a live link is not reported as an error: the retry mends it.
    expect(errors).toEqual([]);
  });

  it('PROTO-13: answered 500 (the host failed to handle it), it is reported and sent again; the two nodes sync', async () => {
    const { failed, errors } = await syncsDespite([['hello', () => new Err('INTERNAL', 'the host failed', { status: 500 })]]);
    expect(failed).toEqual(['hello']);
    expect(errors.map((e) => e.code)).toEqual(['INTERNAL']);
  });

  it('PROTO-13: failed before the link\'s first connection (LINK_DOWN), it is sent again when that connection comes, and the two nodes sync', async () => {
    // The memory link announced its first connection as 'open' alone, which the dialer does not greet on.
    const h = await hub();
    const link = createMemoryLink(h.unit, { connected: false });
    let tried!: () => void;
    const helloFailed = new Promise<void>((resolve) => (tried = resolve));
    const watched = Object.create(link) as SyncLink;
    watched.call = (method: string, args: unknown) => {
      const answer = link.call(method, args);
      if (method === 'hello') answer.catch(() => tried());
      return answer;
    };
    const d = await node({ sync: { connect: () => watched, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await helloFailed;
    link.restore();
    const theirs = await h.s.insert({ from: 'h' });
    await until(() => d.has(theirs), [d]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true });
    await closeAll(d, h.s);
  });

  it('HOST-21, PROTO-13: a push answered 428, then the fresh hello lost: that hello is sent again, and the two nodes sync', async () => {
    const { failed } = await syncsDespite([['push', () => new Err('HELLO_REQUIRED', 'greet again', { status: 428 })], ['hello', lost]]);
    expect(failed).toEqual(['push', 'hello']);
  });
});

/**
 * A hub and a quiet node (only it writes, one record) whose one link fails
 * its next push as `error` says; resolves once the hub holds the write.
 * Nothing else would push it again: no later write, no page from the hub,
 * no reconnect, anti-entropy off.
 */
async function quietWriteDespite(error: () => Error) {
  const h = await hub();
  const script: [string, () => Error][] = [];
  const link = scripted(createMemoryLink(h.unit), script);
  const d = await node({ sync: { connect: () => link, antiEntropyInterval: 0 } });
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  await d.sync.addNode({ url: URL, token: 't' });
  await d.sync.synced(URL);
  script.push(['push', error]);
  const mine = await d.insert({ quiet: true });
  await until(() => h.s.has(mine), [h.s]);
  expect(link.failed).toEqual(['push']);
  await d.sync.synced(URL);
  await closeAll(d, h.s);
  return errors;
}

describe('a push that fails on a link that stays up', () => {
  it('HOST-17 PROTO-13: lost (LINK_TIMEOUT), it is sent again after a wait, and a quiet node\'s write reaches the host (it stayed behind until its next write)', async () => {
    expect(await quietWriteDespite(lost)).toEqual([]);
  });

  it('HOST-17: failed by the host without a status (its disk\'s IO_ERROR, as the memory link carries it), it is reported and sent again', async () => {
    const errors = await quietWriteDespite(() => new Err('IO_ERROR', 'the log append failed (ENOSPC); the write was not made'));
    expect(errors.map((e) => e.code)).toEqual(['IO_ERROR']);
  });
});

describe('a feed that fails on a link that stays up', () => {
  it('PROTO-12: ended by the host with an error of no status (an app\'s tracked() that threw), it is opened again after a wait, from the cursor', async () => {
    let boom = false;
    const h = await hub({ tracked: (page) => {
      if (!boom) return page;
      boom = false;
      throw new Error('tracked failed');
    } });
    const d = await node({ sync: { connect: () => createMemoryLink(h.unit), antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL);
    boom = true;
    const first = await h.s.insert({ n: 1 });
    const second = await h.s.insert({ n: 2 });
    await until(async () => (await d.has(first)) && (await d.has(second)), [d]);
    expect(boom).toBe(false);
    // Reported once, with no status: the one failure, not a refusal that stands.
    expect(errors.map((e) => [e.code, e.status, e.message])).toEqual([['REMOTE_ERROR', undefined, 'tracked failed']]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true });
    await closeAll(d, h.s);
  });
});
