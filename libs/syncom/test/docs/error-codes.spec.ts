import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ERROR_CODES, isSyncomErrorCode, remoteErrorCode, SyncomError, type SyncomErrorCode } from '../../src';

/**
 * ERROR_CODES is the one list of codes. The compiler holds `new SyncomError`
 * and `wsRefusal` to it; this file holds the rest to it: docs/api.md's error
 * tables (code and status, both ways), the literal statuses throwers pass,
 * and the codes written as `code: '...'` in wire objects, which the compiler
 * does not see (a socket.io refusal's `data`, a pre-auth notice).
 */

const root = resolve(__dirname, '../../../..');
const table = ERROR_CODES as Record<string, { status?: number; what: string }>;

/** The status cell of a docs row: none for '', '—' or '-'. */
function statuses(cell: string, count: number): Array<number | undefined> {
  const found = (cell.match(/\d{3}/g) ?? []).map(Number);
  return Array.from({ length: count }, (_, i) => (found.length === count ? found[i] : found[0]));
}

/** The rows of every table in docs/api.md's "Error codes" section: code -> status and when, and codes documented twice. */
function documented(): { rows: Map<string, number | undefined>; when: Map<string, string>; twice: string[] } {
  const md = readFileSync(join(root, 'docs/api.md'), 'utf8');
  const start = md.indexOf('\n## Error codes');
  expect(start).toBeGreaterThan(-1);
  const end = md.indexOf('\n## ', start + 1);
  const section = md.slice(start, end === -1 ? undefined : end);
  const rows = new Map<string, number | undefined>();
  const when = new Map<string, string>();
  const twice: string[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1].startsWith('`')) continue;
    const codes = [...cells[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]);
    const status = statuses(cells[2], codes.length);
    codes.forEach((code, i) => {
      if (rows.has(code)) twice.push(code);
      rows.set(code, status[i]);
      when.set(code, cells[3]);
    });
  }
  return { rows, when, twice };
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function allSources(): string[] {
  const dirs = ['libs', 'apps'].flatMap((top) => readdirSync(join(root, top)).map((p) => join(root, top, p, 'src')));
  return dirs.filter((d) => { try { return statSync(d).isDirectory(); } catch { return false; } }).flatMap((d) => sources(d));
}

interface Use { file: string; code: string; status?: number }

/** Codes in source text, each with the literal status given beside it, if any. */
function uses(): Use[] {
  const patterns = [
    // new SyncomError('CODE', ..., { status: 403 }): the status within the same statement.
    /new SyncomError\(\s*'([A-Z][A-Z0-9_]*)'(?:[^;]*?\bstatus:\s*(\d{3})\b)?/g,
    /wsRefusal\(\s*'([A-Z][A-Z0-9_]*)'\s*,\s*(\d{3})/g,
    // A wire error written as an object: { code: 'CODE', status: 429 }.
    /\bcode:\s*'([A-Z][A-Z0-9_]*)'(?:\s*,\s*status:\s*(\d{3}))?/g,
  ];
  const out: Use[] = [];
  for (const file of allSources()) {
    const text = readFileSync(file, 'utf8');
    for (const re of patterns) {
      for (const m of text.matchAll(re)) out.push({ file: relative(root, file), code: m[1], status: m[2] === undefined ? undefined : Number(m[2]) });
    }
  }
  // Node's errno codes (ENOENT, EEXIST): the file backends mimic fs errors, which are no SyncomErrors.
  return out.filter((u) => !/^E[A-Z]+$/.test(u.code));
}

describe('ERROR_CODES', () => {
  it('every row has a meaning, and a status only where it is an HTTP-like 4xx or 5xx', () => {
    for (const [code, info] of Object.entries(table)) {
      expect([code, info.what.length > 10]).toEqual([code, true]);
      if (info.status !== undefined) expect([code, info.status >= 400 && info.status < 600]).toEqual([code, true]);
    }
  });

  it('LIFE-9, LIFE-18, LOG-20, PROTO-15, PROTO-16, SIG-17, GUAR-4, GUAR-9, GUAR-12, HOST-14: every code the spec names is listed, the limits with their statuses', () => {
    const named = ['OP_REFUSED', 'OP_INVALID', 'OP_UNREADABLE', 'SKEW', 'UNPERSISTED', 'BAD_SIGNATURE', 'UNSIGNED', 'PAGE_FAILED', 'STUCK',
      'HANDSHAKE_LOOP', 'UNDELIVERABLE', 'REWOUND', 'SCOPES', 'OPS_PER_PUSH', 'BYTES_PER_PUSH', 'OPS_PER_SECOND'];
    expect(named.filter((code) => !isSyncomErrorCode(code))).toEqual([]);
    expect([ERROR_CODES.OPS_PER_PUSH.status, ERROR_CODES.BYTES_PER_PUSH.status, ERROR_CODES.OPS_PER_SECOND.status]).toEqual([413, 413, 429]);
  });

  it('docs/api.md lists every code with the same status, once', () => {
    const { rows, twice } = documented();
    expect(twice).toEqual([]);
    const want = Object.entries(table).map(([code, info]) => [code, info.status]);
    const have = Object.keys(table).map((code) => [code, rows.has(code) ? rows.get(code) : 'missing']);
    expect(have).toEqual(want);
  });

  it('docs/api.md says when each code is raised in the table\'s words', () => {
    const { when } = documented();
    const differ = Object.entries(table).filter(([code, info]) => when.get(code) !== info.what).map(([code, info]) => [code, info.what, when.get(code)]);
    expect(differ).toEqual([]);
  });

  it('docs/api.md lists no code ERROR_CODES lacks', () => {
    const extra = [...documented().rows.keys()].filter((code) => !isSyncomErrorCode(code));
    expect(extra).toEqual([]);
  });

  it('every code the sources throw or send is listed, with the listed status where a literal one is given', () => {
    const found = uses();
    expect(found.length).toBeGreaterThan(50);
    const unlisted = found.filter((u) => !isSyncomErrorCode(u.code)).map((u) => `${u.file}: ${u.code}`);
    expect(unlisted).toEqual([]);
    const wrong = found
      .filter((u) => u.status !== undefined && u.status !== table[u.code].status)
      .map((u) => `${u.file}: ${u.code} ${u.status}, listed ${table[u.code].status ?? 'without one'}`);
    expect(wrong).toEqual([]);
  });

  it('the scan sees the codes the compiler cannot: a hub socket refusal and a pre-auth notice', () => {
    const codes = new Set(uses().map((u) => u.code));
    expect([codes.has('SOCKETS_PER_TOKEN'), codes.has('MESSAGE_TOO_LARGE')]).toEqual([true, true]);
  });
});

describe('isSyncomErrorCode and remoteErrorCode', () => {
  it('a listed code is one; an inherited name, another string or a non-string is not', () => {
    expect(isSyncomErrorCode('KIND_CLASH')).toBe(true);
    for (const x of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'kind_clash', '', 42, null, undefined, {}]) {
      expect([x, isSyncomErrorCode(x)]).toEqual([x, false]);
    }
  });

  it('a listed code stays as it is, without remoteCode', () => {
    expect(remoteErrorCode('HELLO_REQUIRED')).toEqual({ code: 'HELLO_REQUIRED' });
  });

  it('an unlisted string becomes the fallback, kept cut to 64 characters in remoteCode', () => {
    expect(remoteErrorCode('NEWER_HOST_CODE')).toEqual({ code: 'REMOTE_ERROR', remoteCode: 'NEWER_HOST_CODE' });
    expect(remoteErrorCode('X'.repeat(10_000), 'LIMITED')).toEqual({ code: 'LIMITED', remoteCode: 'X'.repeat(64) });
    expect(remoteErrorCode({ toString: () => 'KIND_CLASH' })).toEqual({ code: 'REMOTE_ERROR', remoteCode: undefined });
  });

  it('a SyncomError takes a listed code; the type refuses any other', () => {
    const code: SyncomErrorCode = 'LOCKED';
    expect(new SyncomError(code, 'held', { status: ERROR_CODES.LOCKED.status })).toMatchObject({ code: 'LOCKED', status: 423 });
    // @ts-expect-error an unlisted code does not compile
    expect(new SyncomError('NOT_A_CODE', 'x').code).toBe('NOT_A_CODE');
  });
});
