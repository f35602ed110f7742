import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..', '..', '..');

/** What a fresh Node process has loaded after requiring `entries` (from sources, as the apps run them). */
async function loadedBy(entries: string[]): Promise<string[]> {
  const script = `${entries.map((e) => `require(${JSON.stringify(e)});`).join('')}
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-r', join(root, 'scripts', 'register-src.js'), '-e', script], { cwd: root });
  return JSON.parse(stdout) as string[];
}

const socketIoClient = (files: string[]) => files.filter((f) => /node_modules[\\/](socket\.io-client|engine\.io-client)[\\/]/.test(f));
const nest = (files: string[]) => files.filter((f) => /node_modules[\\/](@nestjs|rxjs)[\\/]|libs[\\/]syncom-nest[\\/]/.test(f));

describe("the 'syncom/socket.io' entry", () => {
  it("LINK-2 exports createSocketIoLink and the protocol's names; neither it nor 'syncom' loads socket.io-client or anything of Nest", async () => {
    const entry = await import('syncom/socket.io');
    expect(typeof entry.createSocketIoLink).toBe('function');
    expect(entry.SYNCOM_EVENTS).toMatchObject({ hello: 'hello', changes: 'changes', page: 'changes:data' });
    const engine = await loadedBy(['syncom']);
    const both = await loadedBy(['syncom', 'syncom/socket.io']);
    expect(both.some((f) => /src[\\/]socket\.io[\\/]socket-io-link\.ts$/.test(f))).toBe(true);
    expect([socketIoClient(engine), socketIoClient(both), nest(both)]).toEqual([[], [], []]);
  }, 60_000);
});
