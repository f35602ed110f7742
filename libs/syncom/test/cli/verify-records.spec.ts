import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import { cp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from '../../src';
import type { VerifyReport } from '../../src/cli/verify';
import { internals } from '../../src/testing/internals';
import { cli, tempDir } from './helpers';
import { usedFixture } from './fixtures';
import { unsummed } from '../../src/storage/record-sum';

const DAY = 86_400_000;

const fx = usedFixture();


/** Verify `dir` (--json): the exit code, the report, and what went to stderr. */
async function verify(dir: string): Promise<{ code: number; report: VerifyReport; err: string }> {
  const r = await cli('verify', dir, '--json');
  return { code: r.code, report: JSON.parse(r.out) as VerifyReport, err: r.err };
}

/** A copy of the used storage with `edit` applied, verified. */
async function verifyCopy(edit: (dir: string) => Promise<void>) {
  const dir = await tempDir();
  await cp(fx.path, dir, { recursive: true });
  await edit(dir);
  return verify(dir);
}

/** The record files of `dir` holding `id` (its JSON text), by path under the storage. */
async function filesHolding(dir: string, id: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(join(dir, 'records'))) {
    if ((await readFile(join(dir, 'records', name), 'utf8')).includes(JSON.stringify(id))) out.push(`records/${name}`);
  }
  return out;
}

const faults = (r: VerifyReport) => r.findings.filter((x) => x.level === 'fault').map((x) => `${x.where}: ${x.message}`);
const warnings = (r: VerifyReport) => r.findings.filter((x) => x.level === 'warning').map((x) => `${x.where}: ${x.message}`);

describe('syncom verify: records/ against the log', () => {
  it('GUAR-7, GUAR-8: a sound storage passes: every record the sealed log wrote is compared with the record files, exactly (tombstone and purge marker included)', async () => {
    const { code, report } = await verify(fx.path);
    expect(code).toBe(0);
    expect(faults(report)).toEqual([]);
    expect(report.records).toMatchObject({ exact: true, sealedUnchecked: 0 });
    expect(report.records.files).toBeGreaterThan(0);
    // note, deleted, sealed, fromHub and purged are in the sealed part; the tail's two are not compared.
    expect(report.records.compared).toBeGreaterThanOrEqual(4);
    expect(report.records.records).toBe(7);
    expect((await cli('verify', fx.path)).out).toMatch(/\nrecords {3}7 records in \d+ files, \d+ compared with the log\n/);
  });

  it('GUAR-7: a record file deleted: each record the log wrote that no file holds is a fault naming its id (exit 1)', async () => {
    const { code, report } = await verifyCopy(async (d) => {
      for (const f of new Set([...(await filesHolding(d, fx.ids.note)), ...(await filesHolding(d, fx.ids.deleted))])) await rm(join(d, f));
    });
    expect(code).toBe(1);
    const lost = 'the log wrote it, and no record file holds it: a record file lost (open() rebuilds it from the log)';
    expect(faults(report)).toEqual(expect.arrayContaining([`record ${fx.ids.note}: ${lost}`, `record ${fx.ids.deleted}: ${lost}`]));
  });

  it('GUAR-7: a value changed in a record file, its JSON still valid: a fault naming the file, whose sum fails; in a file without one (store format 1), a fault naming the record and its file', async () => {
    let files: string[] = [];
    const changed = await verifyCopy(async (d) => {
      for (const f of await filesHolding(d, fx.ids.note)) {
        const text = await readFile(join(d, f), 'utf8');
        if (text.includes('"Final"')) files.push(f);
        await writeFile(join(d, f), text.replace('"Final"', '"Fin4l"'));
      }
    });
    expect(files).not.toEqual([]);
    expect(changed.code).toBe(1);
    expect(faults(changed.report)).toEqual(expect.arrayContaining(files.map((f) => `${f}: does not match its sum (changed after it was written): open() rebuilds its records from what the log still holds`)));
    const { code, report } = await verifyCopy(async (d) => {
      for (const f of await filesHolding(d, fx.ids.note)) await writeFile(join(d, f), (unsummed(await readFile(join(d, f), 'utf8')) as string).replace('"Final"', '"Fin4l"'));
    });
    expect(code).toBe(1);
    expect(faults(report)).toEqual([expect.stringMatching(new RegExp(`^record ${fx.ids.note}: records/\\d+\\.json holds it other than the log's ops make it`))]);
  });

  it('LIFE-19: a record file that is not one, or holds an entry that cannot be read, is a fault naming the file', async () => {
    let torn = '';
    let other = '';
    const { code, report } = await verifyCopy(async (d) => {
      [torn] = await filesHolding(d, fx.ids.fromHub);
      await writeFile(join(d, torn), '[{"id": "torn');
      other = (await filesHolding(d, fx.ids.tail[0]))[0];
      const list = JSON.parse(unsummed(await readFile(join(d, other), 'utf8')) as string) as { fields: unknown }[];
      list[0].fields = 7;
      // Without its sum, as store format 1 wrote it: each entry is judged alone.
      await writeFile(join(d, other), JSON.stringify(list));
    });
    expect(code).toBe(1);
    expect(faults(report)).toEqual(expect.arrayContaining([
      `${torn}: not a record file (torn, or changed): open() rebuilds its records from what the log still holds`,
      `${other}: 1 entry cannot be read (changed, or sealed for another key): open() rebuilds their records from what the log still holds`,
    ]));
  });

  it('GUAR-19: without the seal key, a sealed record is skipped with a warning, not a fault', async () => {
    const { code, report } = await verifyCopy(async (d) => {
      for (const f of ['seal-public.pem', 'seal-private.pem']) await rm(join(d, 'keys', f));
    });
    expect(code).toBe(0);
    expect(report.records.sealedUnchecked).toBe(1);
    expect(warnings(report)).toContain('keys/: 1 sealed record not compared with the log: no seal key pair to open them');
  });

  it('LOG-2: with a floor above 0, a record is held to what the log still holds: what older ops wrote is no fault, a lost record file still is', async () => {
    const dir = await tempDir();
    const clock = { t: Date.UTC(2025, 0, 1) };
    const s = await open({ path: dir, now: () => clock.t, sync: { retention: { days: 1 }, log: { rollAfter: 1 } } });
    await s.set('doc', { title: 'first', body: 'only in the record file now' });
    clock.t += 2 * DAY;
    await s.update('doc', { title: 'second' });
    await s.set('other', { x: 1 });
    await internals(s).committer.idle();
    expect(internals(s).log.floor).toBeGreaterThan(0);
    await s.close();
    const sound = await verify(dir);
    expect(sound.code).toBe(0);
    expect(sound.report.records).toMatchObject({ exact: false, compared: 2 });
    for (const f of await filesHolding(dir, 'doc')) await rm(join(dir, f));
    const lost = await verify(dir);
    expect(lost.code).toBe(1);
    expect(faults(lost.report)).toContain('record doc: the log wrote it, and no record file holds it: a record file lost (open() rebuilds it from the log)');
  });

  it('a storage a live process holds: records/ is not compared (a warning), as the writer changes both while verify reads', async () => {
    const dir = await tempDir();
    const s = await open({ path: dir });
    await s.set('a', { x: 1 });
    await internals(s).committer.idle();
    const { code, report } = await verify(dir);
    await s.close();
    expect(code).toBe(0);
    expect(warnings(report)).toEqual([expect.stringMatching(new RegExp(`^records/: not compared with the log: process ${process.pid} has the storage open`))]);
  });
});

describe('syncom verify: a LOCK it cannot check', () => {
  it('GUAR-7: a LOCK naming a process on another host (written by hand, or come with a backup) does not switch the records check off: a changed value is still a fault (exit 1)', async () => {
    const { code, report } = await verifyCopy(async (d) => {
      for (const f of await filesHolding(d, fx.ids.note)) await writeFile(join(d, f), (await readFile(join(d, f), 'utf8')).replace('"Final"', '"Fin4l"'));
      await writeFile(join(d, 'LOCK'), JSON.stringify({ pid: 1, host: 'some-other-host', token: '0'.repeat(32) }));
    });
    expect(code).toBe(1);
    expect(faults(report)).toEqual(expect.arrayContaining([expect.stringMatching(/^records\/\d+\.json: does not match its sum/)]));
  });

  it('GUAR-7: nor does one naming this host and a live pid (1) with no start time: only a process that took the lock, as its start time shows, is a writer', async () => {
    const { code, report } = await verifyCopy(async (d) => {
      for (const f of await filesHolding(d, fx.ids.note)) await writeFile(join(d, f), (await readFile(join(d, f), 'utf8')).replace('"Final"', '"Fin4l"'));
      await writeFile(join(d, 'LOCK'), JSON.stringify({ pid: 1, host: hostname(), token: '0'.repeat(32) }));
    });
    expect(code).toBe(1);
    expect(faults(report)).toEqual(expect.arrayContaining([expect.stringMatching(/^records\/\d+\.json: does not match its sum/)]));
  });
});

describe('syncom verify: what open() refuses or lets go', () => {
  it('SIG-4: a sign-private.pem that is no key, or one of another store, is a fault naming it (open() refuses them: STORE_DAMAGED)', async () => {
    const garbage = await verifyCopy(async (d) => writeFile(join(d, 'keys/sign-private.pem'), 'garbage'));
    expect(garbage.code).toBe(1);
    expect(faults(garbage.report)).toContainEqual(expect.stringMatching(/^keys\/sign-private\.pem: keys\/sign-private\.pem cannot be read as a key/));
    const other = await tempDir();
    const s = await open({ path: other });
    await s.close();
    const foreign = await verifyCopy(async (d) => cp(join(other, 'keys/sign-private.pem'), join(d, 'keys/sign-private.pem')));
    expect(foreign.code).toBe(1);
    expect(faults(foreign.report)).toContainEqual(expect.stringMatching(/does not match/));
  });

  it('LOG-5: with log/index.json torn (and no copy), its segments are not called leftovers that open() removes: open() refuses the store', async () => {
    const { code, report } = await verifyCopy(async (d) => writeFile(join(d, 'log/index.json'), '{"epo'));
    expect(code).toBe(1);
    expect(faults(report)).toContainEqual('log/index.json: missing or unreadable');
    expect(warnings(report).join('\n')).not.toMatch(/leftover that open\(\) removes/);
  });

  it("GUAR-21: a purge's journal (log/scrub.json) that fails its checks is a fault (open() lets it go, and reports it)", async () => {
    const { code, report } = await verifyCopy(async (d) => writeFile(join(d, 'log/scrub.json'), JSON.stringify({ path: 'log/open/1.json', text: 'x', hash: 'y' })));
    expect(code).toBe(1);
    expect(faults(report)).toContainEqual(expect.stringMatching(/^log\/scrub\.json: a purge's journal that fails its checks/));
  });
});

describe('syncom verify: files it cannot read', () => {
  it('a directory where a log or record file should be is a fault at that path, not a stack trace', async () => {
    const { code, report, err } = await verifyCopy(async (d) => {
      await rm(join(d, 'log/seg-1.json'));
      await mkdir(join(d, 'log/seg-1.json'));
      await mkdir(join(d, 'records/9999.json'));
    });
    expect(code).toBe(1);
    expect(err).toBe('');
    expect(faults(report)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^log\/seg-1\.json: cannot be read \(EISDIR/),
      'records/9999.json: a directory where a file should be: open() cannot read it, or write over it',
    ]));
    expect(faults(report).filter((x) => x.startsWith('log/seg-1.json'))).toHaveLength(1);
  });

  it('REG-5: a registry file (remote/*.json) that cannot be read is a fault: open() would forget the node', async () => {
    let file = '';
    const { code, report } = await verifyCopy(async (d) => {
      file = `remote/${(await readdir(join(d, 'remote')))[0]}`;
      await writeFile(join(d, file), '{"url": "memory://hu');
    });
    expect(code).toBe(1);
    expect(faults(report)).toEqual([`remote/<file of memory://hub>: not a registry file (torn, or changed): open() forgets this registered node, its cursor and the own ops kept for it, until addNode() registers it again`]);
  });

  it.each([['an enabled of "yes"', { enabled: 'yes' }], ['scopes that are no names', { scopes: [['*']] }]])('REG-5: a registry file open() refuses for %s is a fault too (only its url was checked)', async (_what, change) => {
    const { code, report } = await verifyCopy(async (d) => {
      const file = join(d, 'remote', (await readdir(join(d, 'remote')))[0]);
      await writeFile(file, JSON.stringify({ ...(JSON.parse(await readFile(file, 'utf8')) as object), ...change }));
    });
    expect(code).toBe(1);
    expect(faults(report)).toEqual([expect.stringMatching(/^remote\/<file of memory:\/\/hub>: not a registry file/)]);
  });

  it('GUAR-7: a log/ that is a symbolic link loop is a fault of the report (exit 1), not one line of error', async () => {
    const { code, report } = await verifyCopy(async (d) => {
      await rm(join(d, 'log'), { recursive: true, force: true });
      await symlink('log', join(d, 'log'));
    });
    expect(code).toBe(1);
    expect(faults(report).join('\n')).toMatch(/ELOOP/);
  });

  it('REG-5 GUAR-7: a FIFO where a registry file is, and a LOCK or format.json that is no plain file, are faults (open() passes the FIFO by, and fails on the others)', async () => {
    const { code, report } = await verifyCopy(async (d) => {
      const file = join(d, 'remote', (await readdir(join(d, 'remote')))[0]);
      await rm(file);
      execFileSync('mkfifo', [file]);
      await mkdir(join(d, 'LOCK'));
      await rm(join(d, 'format.json'));
      execFileSync('mkfifo', [join(d, 'format.json')]);
    });
    expect(code).toBe(1);
    expect(faults(report)).toEqual(expect.arrayContaining([
      'remote/<file of memory://hub>: neither a file nor a folder (a FIFO, socket or device) where a file should be: open() passes it by as absent',
      'LOCK: not a plain file: open() fails (IO_ERROR) on it',
      expect.stringMatching(/^format\.json: cannot be read \(ENOTREG/),
    ]));
  });
});
