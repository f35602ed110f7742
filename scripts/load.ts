// npm run load -- --peers 1000 --seconds 30 --writes 5: load on one hub over
// real socket.io. The hub runs from apps/hub/src/main.ts in a child process
// (SYNCOM_LOAD_PROBE=1 serves its RSS and event-loop delay); the peers run
// here, or with --procs N the raw ones in N child processes and the full ones
// in one more (this process then times deliveries only). Prints connect
// times, writes/s, delivery latency from ack to each peer, the hub's event-loop delay by phase
// and its RSS over time; exits 1 when a write was lost, a peer did not
// converge, the hub kept a socket or its heap did not come back to idle.
import { writeFileSync } from 'node:fs';
import { parseLoadArgs, USAGE } from './load/args';
import { formatLoad, loadFigures, passed } from './load/report';
import { runLoad } from './load/run-load';

async function main(): Promise<number> {
  const args = parseLoadArgs(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const { json, out, help: _help, ...options } = args;
  const result = await runLoad({ ...options, log: (line) => console.log(`[load] ${line}`) });
  console.log(formatLoad(result));
  if (json) {
    const plain = { ...result, connect: { ...result.connect, failed: Object.fromEntries(result.connect.failed) }, writes: { ...result.writes, failed: Object.fromEntries(result.writes.failed) } };
    writeFileSync(json, JSON.stringify(plain, null, 2));
  }
  if (out) {
    const offered = options.rate === undefined ? options.peers * options.writes : Math.round(options.rate * options.seconds);
    writeFileSync(out, `${JSON.stringify(loadFigures(result, offered), null, 2)}\n`);
  }
  return passed(result) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.stack ?? e.message : String(e));
    process.exit(e instanceof TypeError ? 2 : 1);
  },
);
