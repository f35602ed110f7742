import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePorts } from '../../../scripts/free-port';

/** Whether `command` is an executable file in a directory of PATH. */
function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).filter(Boolean).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Why the Redis tests are skipped, or null when they run. They run whenever
 * redis-server is installed, and always under SYNCOM_REQUIRE_REDIS=1 (.ci/run
 * sets it, so a missing redis-server fails CI instead of skipping);
 * SYNCOM_SKIP_REDIS=1 skips them even when it is installed.
 */
function redisSkipReason(): string | null {
  if (process.env.SYNCOM_SKIP_REDIS === '1') return 'SYNCOM_SKIP_REDIS=1';
  if (process.env.SYNCOM_REQUIRE_REDIS === '1' || onPath('redis-server')) return null;
  return 'redis-server is not installed (`apt-get install -y redis-server` runs them)';
}

/** Null when the Redis tests run; otherwise the reason they are skipped. */
export const redisSkipped = redisSkipReason();
export const skipRedis = redisSkipped !== null;

/** Says once, on one line, that the Redis tests of `file` are skipped and why. */
export function noteRedisSkip(file: string): void {
  if (redisSkipped !== null) process.stderr.write(`${file}: the Redis tests are skipped: ${redisSkipped}\n`);
}

/** A redis-server of this test run. */
export interface RedisServer {
  url: string;
  /** SIGSTOP (true): it keeps accepting connections but answers nothing; SIGCONT (false) resumes it. */
  pause(paused: boolean): void;
  stop(): Promise<void>;
}

const MISSING = 'redis-server is not installed: `apt-get install -y redis-server` (.ci/run does), or set SYNCOM_SKIP_REDIS=1 to skip the Redis tests';

/**
 * Starts Debian's redis-server on a free loopback port, in memory only (no
 * RDB, no AOF), and resolves once it accepts connections.
 * @throws Error naming the install command when redis-server is missing.
 */
export async function startRedis(): Promise<RedisServer> {
  const [port] = await freePorts(1);
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test worker that dies must not leave redis-server behind.
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { process.off('exit', orphaned); resolve(); }));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.once('error', (e: NodeJS.ErrnoException) => reject(new Error(e.code === 'ENOENT' ? MISSING : `redis-server: ${e.message}`)));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: (paused) => void child.kill(paused ? 'SIGSTOP' : 'SIGCONT'),
    stop: async () => {
      // A stopped process takes SIGTERM only once it runs again.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGCONT');
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
