// The record-count waiter of both kinds of peer: the page kit's stores (bundled
// into the test page) and the Node dialers of node-peers.ts. Type imports only,
// so it bundles for the browser and runs in Node alike.
import type { Storage } from '../../../../libs/syncom/src/browser';

/**
 * Resolves with the count once `storage` holds at least `count` records,
 * re-checked at each batch applied, each bootstrap page (a bootstrap joins
 * pages without 'apply' events) and each sync answer. One list() at a time
 * (it copies every record): events that come meanwhile ask for one more
 * check. The listeners are removed once it settles.
 */
export function untilRecords(storage: Storage, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let offs: (() => void)[] = [];
    let running = false;
    let again = false;
    const settle = (done: () => void): void => {
      offs.forEach((off) => off());
      done();
    };
    const check = (): void => {
      if (running) return void (again = true);
      running = true;
      again = false;
      storage.list().then((l) => {
        running = false;
        if (l.length >= count) return settle(() => resolve(l.length));
        if (again) check();
      }, (e: unknown) => settle(() => reject(e)));
    };
    offs = [storage.on('apply', check), storage.sync.on('bootstrap', check), storage.sync.on('sync', check), storage.sync.on('progress', check)];
    check();
  });
}
