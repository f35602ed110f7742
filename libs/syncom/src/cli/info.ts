import { formatVector, iso, plural } from './format';
import { infoReport, type InfoReport, type NodeInfo } from './info-report';
import { type CliIo, EXIT_FAULTS, EXIT_OK, textLines, writeOut } from './io';
import { openReadOnly } from './open-read-only';
import { findStorage } from './storage-dir';

const range = (list: { from: number; to: number }[]) => (list.length ? ` (${list[0].from}..${list[list.length - 1].to})` : '');

function nodeLines(n: NodeInfo): string[] {
  const state = [n.enabled ? 'enabled' : 'disabled', `scopes ${n.scopes.join(',')}`, n.hasToken ? 'token set' : 'no token'];
  const remote = n.remote.id ? `${n.remote.id} epoch ${n.remote.epoch ?? '?'}` : 'not greeted yet';
  return [
    // A url's user info and query are credentials: the report leaves them out, as the logs and metrics do.
    `  ${n.url}`,
    `    ${state.join(', ')}`,
    `    remote    ${remote}`,
    `    cursor    ${n.cursor ?? 'none'}, last sync ${iso(n.lastSync)}`,
    `    lag       ${plural(n.lag, 'own op')} not acknowledged`,
  ];
}

/** The human-readable form of the report. */
export function formatInfo(r: InfoReport): string {
  const rec = r.records;
  const lines = [
    `storage   ${r.path}`,
    `node      ${r.id}`,
    `epoch     ${r.epoch}`,
    `floor     ${r.floor}, head ${r.head} (event id ${r.eventId})`,
    `chain     ${r.chain || '(empty)'}`,
    `vector    ${formatVector(r.vector)}`,
    ...(r.sealedSeq ? [`sealed    ${plural(r.sealedSeq, 'op')} in the sealed stream`] : []),
    `segments  ${r.segments.length} sealed${range(r.segments)}, ${plural(r.openBatches.length, 'open batch', 'open batches')}${range(r.openBatches)}`,
    `ops       ${r.ops} in the log`,
    `records   ${rec.live} live${rec.sealed ? ` (${rec.sealed} sealed)` : ''}, ${rec.deleted} deleted, ${rec.purged} purged`,
    `nodes     ${r.nodes.length} registered`,
    ...r.nodes.flatMap(nodeLines),
    ...r.problems.map((p) => `problem   ${p}`),
  ];
  return textLines(lines);
}

/**
 * `syncom info <path> [--json]`: the storage's identity, log, records and
 * registered nodes. Exit 1 when the engine could not read part of it.
 */
export async function infoCommand(path: string, json: boolean, io: CliIo): Promise<number> {
  const inspected = await openReadOnly(await findStorage(path));
  try {
    const report = infoReport(inspected.storage, inspected.storage.replica.options.path, inspected.problems);
    await writeOut(io.stdout, json ? JSON.stringify(report, null, 2) + '\n' : formatInfo(report));
    return report.problems.length ? EXIT_FAULTS : EXIT_OK;
  } finally {
    await inspected.close();
  }
}
