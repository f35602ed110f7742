import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VerifyReport } from '../../src/cli/verify';
import type { InfoReport } from '../../src/cli/info-report';
import { cli, tempDir } from './helpers';
import { usedFixture } from './fixtures';

type LogFileJson = { from: number; chain?: string; ops: unknown[][] };

const fx = usedFixture();
let info: InfoReport;
/** The open files' names (a file holds one batch a line; the newest holds the last batch). */
let openNames: number[] = [];

beforeAll(async () => {
  info = JSON.parse((await cli('info', fx.path, '--json')).out) as InfoReport;
  openNames = (await readdir(join(fx.path, 'log/open'))).map((n) => Number(n.replace('.json', ''))).sort((a, b) => a - b);
});

/** A copy of the used storage with `edit` applied, verified: the exit code and the --json report. */
async function verifyCopy(edit: (dir: string) => Promise<void>): Promise<{ code: number; report: VerifyReport; out: string }> {
  const dir = await tempDir();
  await cp(fx.path, dir, { recursive: true });
  await edit(dir);
  const r = await cli('verify', dir, '--json');
  return { code: r.code, report: JSON.parse(r.out) as VerifyReport, out: (await cli('verify', dir)).out };
}

/** Edit a log file's last batch (a segment's only one; an open file's last line). */
async function editLogFile(dir: string, file: string, edit: (f: LogFileJson) => void): Promise<void> {
  const lines = (await readFile(join(dir, file), 'utf8')).split('\n');
  const last = lines.length > 1 && lines[lines.length - 1] === '' ? lines.length - 2 : lines.length - 1;
  const f = JSON.parse(lines[last]) as LogFileJson;
  edit(f);
  lines[last] = JSON.stringify(f);
  await writeFile(join(dir, file), lines.join('\n'));
}

const lastBatch = () => `log/open/${openNames[openNames.length - 1]}.json`;
const seg = (i: number) => `log/seg-${info.segments[i].from}.json`;
const faults = (r: VerifyReport) => r.findings.filter((x) => x.level === 'fault').map((x) => `${x.where}: ${x.message}`);

describe('syncom verify', () => {
  it('passes a sound storage: every op signed and checked, the chain ending on the head info shows', async () => {
    const r = await cli('verify', fx.path, '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as VerifyReport;
    expect(report).toMatchObject({ faults: 0, ops: info.ops, signed: info.ops, unsigned: 0, sealedUnchecked: 0, chain: info.chain, epoch: info.epoch });
    expect(report.segments).toBe(info.segments.length);
    // The purge in the open part rewrote its batch under its block: said, not failed.
    expect(report.findings).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringContaining('purge scrubbed') })]);
    const text = await cli('verify', fx.path);
    expect(text.out).toMatch(/result {4}OK, 1 warning\n$/);
  });

  it('finds a payload changed in an open batch: its digest and its chain block (exit 1)', async () => {
    const { code, report, out } = await verifyCopy((d) => editLogFile(d, lastBatch(), (f) => { (f.ops[0][9] as Record<string, unknown>).n = 99; }));
    expect(code).toBe(1);
    const pos = info.openBatches[info.openBatches.length - 1].from;
    expect(faults(report).sort()).toEqual([
      `${info.epoch}.${pos}: its payload does not match its digest: changed after it was signed`,
      `${lastBatch()}: its chain block does not re-hash: the batch changed after it was appended`,
    ].sort());
    expect(out).toMatch(/FAULT {3}.*does not match its digest/);
    expect(out).toMatch(/result {4}2 faults/);
  });

  it('finds a payload changed in a sealed segment, and a signature moved onto another op', async () => {
    const changed = await verifyCopy((d) => editLogFile(d, seg(0), (f) => { (f.ops[0][9] as Record<string, unknown>).title = 'Forged'; }));
    expect(changed.code).toBe(1);
    expect(faults(changed.report)).toEqual([`${info.epoch}.1: its payload does not match its digest: changed after it was signed`]);
    const swapped = await verifyCopy((d) => editLogFile(d, seg(0), (f) => { [f.ops[0][15], f.ops[1][15]] = [f.ops[1][15], f.ops[0][15]]; }));
    expect(swapped.code).toBe(1);
    expect(faults(swapped.report)).toEqual([1, 2].map((p) => `${info.epoch}.${p}: its signature does not verify against its origin`));
  });

  it('finds a sealed segment whose text changed where no entry\'s check can show it: the hash its seal wrote', async () => {
    const spaced = await verifyCopy(async (d) => {
      const path = join(d, seg(0));
      await writeFile(path, (await readFile(path, 'utf8')).replace('"ops":[', '"ops": ['));
    });
    expect(spaced.code).toBe(1);
    expect(faults(spaced.report)).toEqual([expect.stringContaining(`${seg(0)}: its ops do not match the hash written at its seal, though no entry's check shows which changed`)]);
  });

  it('finds an op logged twice: its stream repeats a seq though both signatures hold', async () => {
    const { code, report } = await verifyCopy((d) => editLogFile(d, seg(1), (f) => { f.ops[1] = f.ops[0]; }));
    expect(code).toBe(1);
    const pos = info.segments[1].from + 1;
    expect(faults(report)).toEqual([expect.stringMatching(new RegExp(`^${info.epoch}\\.${pos}: seq \\d+ of stream \\S+ repeats or goes back`))]);
  });

  it('finds a truncated segment and an unparseable batch, each once (no cascade of stream gaps)', async () => {
    const { code, report } = await verifyCopy(async (d) => {
      const text = await readFile(join(d, seg(1)), 'utf8');
      await writeFile(join(d, seg(1)), text.slice(0, text.length / 2));
      await writeFile(join(d, lastBatch()), 'not json');
    });
    expect(code).toBe(1);
    // The newest batch file is written in place: torn, it is a crash's cut write, which open() drops (a warning).
    expect(faults(report)).toEqual([`${seg(1)}: torn: not a log file`]);
    expect(report.findings).toContainEqual(expect.objectContaining({ level: 'warning', where: lastBatch(), message: expect.stringMatching(/^torn newest batch/) }));
    expect(report.chain).toBeNull();
  });

  it("checks the log against index.json: a segment's chain head, a missing segment, a gap in positions", async () => {
    const headChanged = await verifyCopy(async (d) => {
      const index = JSON.parse(await readFile(join(d, 'log/index.json'), 'utf8')) as { segments: { chain: string }[] };
      index.segments[0].chain = 'x';
      await writeFile(join(d, 'log/index.json'), JSON.stringify(index));
    });
    expect(faults(headChanged.report)).toEqual([`${seg(0)}: its chain head differs from the one index.json lists for it`]);
    const gone = await verifyCopy((d) => rm(join(d, seg(0))));
    expect(faults(gone.report)).toEqual([`${seg(0)}: missing, though index.json lists it`]);
    const [first, second] = openNames;
    const hole = await verifyCopy((d) => rm(join(d, `log/open/${first}.json`)));
    expect(faults(hole.report)).toContainEqual(`log/open/${second}.json: positions ${first}..${second - 1} are missing before it`);
  });

  it("LOG-5: finds a count in index.json's vector the sealed log does not hold (raised, or a stream no op shows), as open() reports it", async () => {
    let key = '';
    const raised = await verifyCopy(async (d) => {
      const index = JSON.parse(await readFile(join(d, 'log/index.json'), 'utf8')) as { vector: Record<string, number> };
      key = Object.keys(index.vector)[0];
      index.vector[key] += 7;
      index.vector.ghost = 3;
      await writeFile(join(d, 'log/index.json'), JSON.stringify(index));
    });
    expect(raised.code).toBe(1);
    expect(faults(raised.report)).toHaveLength(2);
    expect(faults(raised.report)).toEqual(expect.arrayContaining([
      expect.stringMatching(new RegExp(`^log/index.json: its vector says \\d+ for stream ${key}, the sealed log holds \\d+`)),
      expect.stringMatching(/^log\/index.json: its vector says 3 for stream ghost, the sealed log holds 0/),
    ]));
  });

  it('leaves sealed ops unchecked without the seal key (a warning), and finds a sealed box changed with it', async () => {
    const noKey = await verifyCopy(async (d) => {
      for (const f of ['seal-public.pem', 'seal-private.pem']) await rm(join(d, 'keys', f));
    });
    expect(noKey.code).toBe(0);
    expect(noKey.report.sealedUnchecked).toBe(1);
    expect(noKey.out).toContain('1 sealed op not checked');
    const boxed = await verifyCopy(async (d) => {
      for (const name of await readdir(join(d, 'log'))) {
        if (!name.startsWith('seg-')) continue;
        // The box is `1.<key>.<iv>.<tag>.<ciphertext>`: the first ciphertext character carries six whole bits (the last may be padding).
        await editLogFile(d, `log/${name}`, (f) => f.ops.forEach((p) => { if (p?.length === 19) p[18] = String(p[18]).replace(/\.(.)([^.]*)$/, (_m, c: string, rest: string) => `.${c === 'A' ? 'B' : 'A'}${rest}`); }));
      }
    });
    expect(boxed.code).toBe(1);
    expect(faults(boxed.report)).toEqual([expect.stringContaining('a sealed entry that does not open')]);
  });

  it('shows a progress bar on a terminal, and no per-op noise otherwise', async () => {
    const stdout = { text: '', write(t: string) { this.text += t; return true; } };
    const tty = { text: '', isTTY: true, write(t: string) { this.text += t; return true; } };
    const { runCli } = await import('../../src/cli/main');
    expect(await runCli(['verify', fx.path], { stdout, stderr: tty })).toBe(0);
    expect(tty.text).toMatch(new RegExp(`\\rverify \\[#{30}\\] 100% ${info.ops}/${info.ops}\\n$`));
    expect((await cli('verify', fx.path)).err).toBe('');
  });
});
