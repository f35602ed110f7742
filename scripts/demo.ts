// npm run demo: a hub and two example-api nodes on free loopback ports, in
// three processes. A note written through A's REST API is shown arriving at B,
// B's writes arriving at A, then the whole state of A and B is compared (and
// the hub's record count); everything stops and the demo exits 0, or 1 if
// anything did not arrive or the states differ.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './free-port';

const root = join(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'syncom-demo-'));
const children: ChildProcess[] = [];
/** The lines the demo shows of its apps: where they listen, bootstraps, and anything warned or failed. */
const SHOWN = /listening on|bootstrapped|WARN|ERROR/;

/** Starts an app and resolves once it logs that it listens. */
function start(name: string, main: string, env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, ['-r', join(root, 'scripts/register-src.js'), join(root, main)], {
    env: { ...process.env, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        if (!SHOWN.test(line)) continue;
        console.log(`  [${name}] ${line.replace(/\x1b\[[0-9;]*m/g, '')}`);
        if (line.includes('listening on')) resolve();
      }
    };
    child.stdout!.on('data', onLine);
    child.stderr!.on('data', onLine);
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

async function json(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json' } });
  return res.status === 404 ? undefined : res.json();
}

async function waitFor<T>(what: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v !== undefined || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<number> {
  const [hub, a, b] = await freePorts(3);
  const hubUrl = `http://127.0.0.1:${hub}/syncom`;
  console.log(`syncom demo: a hub on :${hub}, nodes A on :${a} and B on :${b} (data in ${dir})`);
  // The demo reads the hub's vector from GET /health, which names writers only with the detail on.
  await start('hub', 'apps/hub/src/main.ts', { PORT: String(hub), SYNCOM_PATH: join(dir, 'hub'), SYNCOM_TOKENS: 'demo', SYNCOM_HEALTH_DETAIL: '1' });
  const node = (port: number, name: string) => ({ PORT: String(port), SYNCOM_PATH: join(dir, name), SYNCOM_HUB: hubUrl, SYNCOM_TOKEN: 'demo' });
  await start('A', 'apps/example-api/src/main.ts', node(a, 'a'));
  // A writes before B exists, so B's first contact is a bootstrap (with its progress lines).
  for (let i = 0; i < 20; i++) await json(`http://127.0.0.1:${a}/notes`, { method: 'POST', body: JSON.stringify({ title: `note ${i}` }) });
  const aId = (await json(`http://127.0.0.1:${a}/sync/peers`)).id;
  await waitFor(async () => ((await json(`http://127.0.0.1:${hub}/health`)).vector[aId] >= 20 ? true : undefined), 15_000);
  console.log('\nA wrote 20 notes and the hub has them; starting B, which bootstraps from the hub\n');
  await start('B', 'apps/example-api/src/main.ts', node(b, 'b'));

  const { id } = await json(`http://127.0.0.1:${a}/notes`, { method: 'POST', body: JSON.stringify({ title: 'Hello from A', body: 'written offline-first' }) });
  console.log(`\nPOST A/notes -> ${id}`);
  await json(`http://127.0.0.1:${a}/notes/${id}/tags`, { method: 'POST', body: JSON.stringify({ add: ['demo'] }) });
  const t0 = Date.now();
  const seen = await waitFor(async () => {
    const n = await json(`http://127.0.0.1:${b}/notes/${id}`);
    return n?.tags?.length ? n : undefined;
  }, 15_000);
  if (!seen) {
    console.log('GET B/notes/:id -> the note did not arrive within 15 s');
    return 1;
  }
  console.log(`GET B/notes/${id} after ${Date.now() - t0} ms -> ${JSON.stringify(seen)}`);

  const fromB = await json(`http://127.0.0.1:${b}/notes`, { method: 'POST', body: JSON.stringify({ title: 'Hello from B' }) });
  await json(`http://127.0.0.1:${b}/notes/${id}/views`, { method: 'POST', body: JSON.stringify({ by: 2 }) });
  console.log(`POST B/notes -> ${fromB.id}; POST B/notes/${id}/views {"by":2}`);
  const t1 = Date.now();
  const back = await waitFor(async () => ((await json(`http://127.0.0.1:${a}/notes/${id}`))?.views === 2 && (await json(`http://127.0.0.1:${a}/notes/${fromB.id}`)) ? true : undefined), 15_000);
  if (!back) {
    console.log("GET A -> B's writes did not arrive within 15 s");
    return 1;
  }
  console.log(`GET A/notes/${fromB.id} and A's views of ${id} after ${Date.now() - t1} ms: B's writes are on A`);
  return compare(a, b, hub);
}

/** Every note of A and of B, and the hub's record count: the same state on every node. */
async function compare(a: number, b: number, hub: number): Promise<number> {
  const state = async (port: number) => JSON.stringify(((await json(`http://127.0.0.1:${port}/notes`)) as { id: string }[]).sort((x, y) => (x.id < y.id ? -1 : 1)));
  const same = await waitFor(async () => {
    const [sa, sb] = [await state(a), await state(b)];
    return sa === sb ? sa : undefined;
  }, 15_000);
  const records = (await json(`http://127.0.0.1:${hub}/health`)).counts?.records;
  const notes = same === undefined ? undefined : (JSON.parse(same) as unknown[]).length;
  console.log(`\nA and B hold ${same === undefined ? 'different states' : `the same ${notes} notes, field for field`}; the hub holds ${records} records\n`);
  return same !== undefined && records === notes ? 0 : 1;
}

async function stop(): Promise<void> {
  await Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
  })));
  rmSync(dir, { recursive: true, force: true });
}

main()
  .catch((e) => { console.error(e); return 1; })
  .then(async (code) => { await stop(); console.log(code === 0 ? 'demo: ok' : 'demo: failed'); process.exit(code); });
