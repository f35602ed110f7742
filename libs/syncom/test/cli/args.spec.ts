import { parseArgs } from '../../src/cli/args';
import { createProgress } from '../../src/cli/progress';
import { cli, collector } from './helpers';

describe('the command line', () => {
  it('parses a command, a path and its options in any order', () => {
    expect(parseArgs(['log', 'data', '--from', 'e.3', '--limit=5', '--json'])).toMatchObject({ command: 'log', path: 'data', from: 'e.3', limit: 5, json: true });
    expect(parseArgs(['--all', 'export', '--sealed', 'data'])).toMatchObject({ command: 'export', path: 'data', all: true, sealed: true });
    expect(parseArgs(['help'])).toMatchObject({ help: true });
  });

  it.each([
    [['frob', 'data'], 'unknown command "frob"'],
    // Names of Object.prototype's members are no commands: an `in` check took them, and ran `log` (or threw on an option).
    [['constructor', 'data'], 'unknown command "constructor"'],
    [['__proto__', 'data'], 'unknown command "__proto__"'],
    [['toString', 'data', '--json'], 'unknown command "toString"'],
    [['info'], 'info needs the path of a storage directory'],
    [[], 'a command is needed: info, verify, export, log or pull'],
    [['info', 'data', '--color'], 'unknown option --color'],
    [['info', 'data', '-x'], 'unknown option -x'],
    [['info', 'data', '--from', 'e.1'], 'info takes no --from'],
    [['export', 'data', '--json'], 'export takes no --json'],
    [['log', 'data', '--limit', '0'], '--limit takes a positive integer, not "0"'],
    [['log', 'data', '--from'], '--from needs a value'],
    [['info', 'a', 'b'], 'one storage path at a time; unexpected "b"'],
  ])('refuses %j with exit 2: %s', async (argv, message) => {
    const r = await cli(...argv);
    expect(r).toEqual({ code: 2, out: '', err: `syncom: ${message}\nsyncom --help shows the commands and options\n` });
  });

  it('prints the usage with --help and exits 0', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: syncom <command> <path> \[options\]/);
    for (const c of ['info', 'verify', 'export', 'log', '--from', '--all', '--sealed', 'exit codes: 0 ok, 1 faults']) expect(r.out).toContain(c);
    expect((await cli('verify', '-h')).out).toBe(r.out);
  });
});

describe('the progress report', () => {
  it('draws a bar in place on a terminal, at most once per redraw interval, and completes it', () => {
    const s = collector(true);
    const clock = { t: 0 };
    const p = createProgress(s, 'verify', 200, { now: () => clock.t, redrawMs: 100 });
    p.update(50);
    clock.t = 150;
    p.update(100);
    p.update(150);
    p.finish();
    expect(s.text).toBe(`\rverify [${'#'.repeat(15)}${'-'.repeat(15)}]  50% 100/200\rverify [${'#'.repeat(30)}] 100% 200/200\n`);
  });

  it('writes a plain line every few seconds when stderr is no terminal, and nothing more at the end', () => {
    const s = collector(false);
    const clock = { t: 0 };
    const p = createProgress(s, 'verify', 1000, { now: () => clock.t, lineMs: 2000 });
    for (let n = 100; n <= 1000; n += 100) { clock.t += 500; p.update(n); }
    p.finish();
    expect(s.text).toBe('verify: 400/1000 (40%)\nverify: 800/1000 (80%)\n');
  });
});
