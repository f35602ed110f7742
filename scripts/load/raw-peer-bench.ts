// node -r ./scripts/register-src.js scripts/load/raw-peer-bench.ts [peers] [pages] [root]
// What the load tool's raw peers cost: a socket.io server here sends `pages`
// pages of 50 ops to each of `peers` raw peers in a child process (up to 16
// pages out per socket, as the gateway does), and the child's CPU per op
// taken is printed. `root` runs the raw peers of another checkout (a worktree
// of an older commit), for before/after figures on the same machine.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server, type Socket } from 'socket.io';

const OPS = 50;
const WINDOW = 16;
type Ack = (a: unknown) => void;

/** Page k: one op of each of OPS writers, seq k + 1, shaped and sized as a signed write is. */
function page(k: number): unknown[] {
  return Array.from({ length: OPS }, (_, i) => {
    const origin = `writer${String(i).padStart(37, '0')}`;
    const data = { peer: i, n: k + 1, at: 1764650000000 + k };
    return [origin, k + 1, data.at, 'write', `${origin}:${k + 1}`, null, null, null, null, data, null, null, null, null, null, 'x'.repeat(86), null, null];
  });
}

/** Sends every page to `socket`'s feed `sub`, WINDOW out at once; resolves once all are acked. */
function feed(socket: Socket, sub: string, pages: unknown[][]): Promise<void> {
  return new Promise((resolve) => {
    let [next, acked] = [0, 0];
    const send = () => {
      while (next < pages.length && next - acked < WINDOW) {
        const k = next++;
        socket.emit('changes:data', { sub, value: { ops: pages[k] }, eventId: `E.${(k + 1) * OPS}` }, () => {
          if (++acked === pages.length) resolve();
          else send();
        });
      }
    };
    send();
  });
}

async function main(): Promise<void> {
  const [peers, count] = [Number(process.argv[2] ?? 500), Number(process.argv[3] ?? 40)];
  const root = process.argv[4] ?? join(__dirname, '..', '..');
  const pages = Array.from({ length: count }, (_, k) => page(k));
  const http = createServer();
  const io = new Server(http, { transports: ['websocket'], perMessageDeflate: false });
  const feeds: Promise<void>[] = [];
  let go: () => void = () => undefined;
  const started = new Promise<void>((resolve) => { go = resolve; });
  io.of('/syncom').on('connection', (s) => {
    s.on('hello', (_m: unknown, ack: Ack) => ack({ ok: true, value: { epoch: 'E', floor: 0 } }));
    s.on('changes', (m: { sub: string }, ack: Ack) => {
      ack({ ok: true, value: null });
      feeds.push(started.then(() => feed(s, m.sub, pages)));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/syncom`;
  const child = fork(join(__dirname, 'raw-peer-bench-child.ts'), [url, String(peers), root], { execArgv: [...(process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean), '-r', join(__dirname, '..', 'register-src.js')] });
  const next = () => new Promise<{ cpuMs: number }>((resolve) => child.once('message', resolve));
  const ready = await next();
  const t0 = performance.now();
  go();
  while (feeds.length < peers) await new Promise((r) => setImmediate(r));
  await Promise.all(feeds);
  const wall = performance.now() - t0;
  child.send('done');
  const end = await next();
  const ops = peers * count * OPS;
  const cpu = end.cpuMs - ready.cpuMs;
  console.log(`${root}: ${peers} raw peers took ${ops} ops in ${(wall / 1000).toFixed(1)} s; their process ${(cpu / 1000).toFixed(2)} CPU-s, ${((cpu * 1000) / ops).toFixed(2)} µs per op`);
  await new Promise((resolve) => child.once('exit', resolve));
  io.close();
}

void main();
