import { createMemoryBackend, open } from '../../src';
import { nodeFile } from '../../src/sync/dial/registry';

/**
 * A registry file holding fields no version writes (edited by hand or by
 * another program, or a hostile file placed before the app opened the
 * store): they were kept in the record as they came, shown by listNodes(),
 * and written again at every save of the node (after each changes page).
 */

const URL = 'wss://hub/api';
const offline = () => new Promise<never>(() => undefined);

describe('a registry file with fields no version writes', () => {
  it('keeps only the record\'s own fields: listNodes() shows none of the rest, and a save writes none of it again', async () => {
    const backend = createMemoryBackend();
    let s = await open({ path: 's', backend, sync: { connect: offline } });
    await s.sync.addNode({ url: URL, token: 't' });
    await s.close();
    const path = nodeFile(URL);
    const rec = JSON.parse((await backend.read(path)) as string) as Record<string, unknown>;
    rec.junk = 'j'.repeat(1_000_000);
    rec.remote = { id: 'n1', epoch: 'e1', schema: { version: 1, hash: 'h', junk: 'k'.repeat(1000) }, more: 'x' };
    await backend.write(path, JSON.stringify(rec));

    s = await open({ path: 's', backend, sync: { connect: offline } });
    const [node] = s.sync.listNodes();
    expect(Object.keys(node).sort()).toEqual(['acked', 'cursor', 'enabled', 'lastSync', 'remote', 'scopes', 'token', 'url']);
    expect(node.remote).toEqual({ id: 'n1', epoch: 'e1', schema: { version: 1, hash: 'h' } });
    await s.sync.enableNode(URL, false);
    expect(((await backend.read(path)) as string).length).toBeLessThan(1000);
    await s.close();
  });
});
