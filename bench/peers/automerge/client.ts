import { type AutomergeUrl, type DocHandle, type DocHandleChangePayload, type NetworkAdapterInterface, Repo } from '@automerge/automerge-repo';
import { WebSocketClientAdapter } from '@automerge/automerge-repo-network-websocket';
import { makeRecord } from '../../lib/record';
import { paced, serveClient } from '../client-side';
import { recordId, TABLE, WINDOW, wideRecord } from '../protocol';

type Doc = Record<typeof TABLE, Record<string, ReturnType<typeof makeRecord> | ReturnType<typeof wideRecord>>>;

/** How long the reader keeps asking for the writer's document while the server does not have it yet. */
const FIND_TRIES = 50;

/**
 * An Automerge client: a Repo on the websocket client adapter. The writer
 * creates one document, a map of records; the reader finds it by its url.
 * A record is a map of its fields put in one change (handle.change). Records
 * held are counted from the change events' patches (a put at notes/<id>),
 * not by walking the document at every change.
 */
serveClient(async ({ url, role, writer }) => {
  // The adapter's typings import '@automerge/automerge-repo/slim', a subpath our node10 module resolution
  // does not find, so TypeScript sees the class without its base: cast to the interface it implements.
  const repo = new Repo({ network: [new WebSocketClientAdapter(url) as unknown as NetworkAdapterInterface] });
  const handle = role === 'writer' ? repo.create<Doc>({ [TABLE]: {} }) : await find(repo, writer?.doc as AutomergeUrl);
  let held = Object.keys(handle.doc()[TABLE]).length;
  const count = ({ patches }: DocHandleChangePayload<Doc>) => {
    for (const p of patches) if (p.action === 'put' && p.path.length === 2 && p.path[0] === TABLE) held++;
  };
  handle.on('change', count);
  return {
    info: { doc: handle.url },
    held: () => held,
    onChange(listener) {
      const onChange = () => listener();
      handle.on('change', onChange);
      return () => void handle.off('change', onChange);
    },
    write: (from, count) => paced(from, count, WINDOW, (i) => handle.change((d: Doc) => { d[TABLE][recordId(i)] = makeRecord(i); })),
    writeBatch: (from, count) => handle.change((d: Doc) => {
      for (let i = from; i < from + count; i++) d[TABLE][recordId(i)] = wideRecord(i);
    }),
    close: () => repo.shutdown(),
  };
});

/** The writer's document, asked of the server until it has it (the writer's first sync may still be on its way). */
async function find(repo: Repo, docUrl: AutomergeUrl): Promise<DocHandle<Doc>> {
  for (let i = 1; ; i++) {
    try {
      return await repo.find<Doc>(docUrl);
    } catch (e) {
      if (i >= FIND_TRIES) throw e;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
