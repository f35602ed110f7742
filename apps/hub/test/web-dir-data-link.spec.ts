import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hubConfigFromEnv } from '../src/hub.config';
import { webDirServesData } from '../src/web-app';

/**
 * The hub refuses a data path inside the served web folder. The check resolves both paths through
 * their links (realpath), but a data path that does not exist yet (a hub's first start, the one that writes the
 * keys) was only resolved lexically: reached through a link to the web folder (or through any linked parent
 * folder, /var -> /private/var on macOS), it was not seen as inside, and the keys were written where they are served.
 */
describe('hub: a data path reached through a link into the web folder, before it exists', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hub-weblink-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a first start\'s SYNCOM_PATH=<link to web>/data is refused as <web>/data is', () => {
    const web = join(dir, 'web');
    mkdirSync(web, { recursive: true });
    writeFileSync(join(web, 'index.html'), '<!doctype html>');
    const link = join(dir, 'site');
    symlinkSync(web, link, 'dir');
    // Once it exists the check sees it (realpath): only the first start is let through.
    expect(webDirServesData(web, join(link, 'data'))).toBe(true);
    expect(() => hubConfigFromEnv({ SYNCOM_WEB_DIR: web, SYNCOM_PATH: join(link, 'data', 'hub') })).toThrow(/SYNCOM_WEB_DIR/);
    // A data path beside the web folder through the same link's parent stays fine.
    expect(webDirServesData(web, join(dir, 'data', 'hub'))).toBe(false);
  });
});
