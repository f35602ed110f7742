import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../../src';
import type { InfoReport } from '../../src/cli/info-report';
import { cli } from './helpers';
import { usedFixture } from './fixtures';

const fx = usedFixture();
let info: InfoReport;

beforeAll(async () => {
  info = JSON.parse((await cli('info', fx.path, '--json')).out) as InfoReport;
});

describe('syncom log', () => {
  it('prints every op from the floor on, one line each: event id, origin, seq, stamp, type, id, fields', async () => {
    const r = await cli('log', fx.path);
    expect(r).toMatchObject({ code: 0, err: '' });
    const out = r.out.trimEnd().split('\n');
    expect(out).toHaveLength(info.ops);
    expect(out[0]).toMatch(new RegExp(`^${info.epoch}\\.1 ${fx.ids.node.slice(0, 8)}\\.\\. 1 \\d{4}-\\S+Z write ${fx.ids.note} title="Draft" body="first"$`));
    expect(out).toContainEqual(expect.stringMatching(new RegExp(` inc ${fx.ids.note} views\\+=3$`)));
    expect(out).toContainEqual(expect.stringMatching(new RegExp(` remove ${fx.ids.note} tags-=\\["ui"\\]$`)));
    expect(out).toContainEqual(expect.stringMatching(new RegExp(` write ${fx.ids.purged} \\(scrubbed\\)$`)));
    expect(out).toContainEqual(expect.stringMatching(new RegExp(` ${fx.ids.hubNode.slice(0, 8)}\\.\\. 1 \\S+ write ${fx.ids.fromHub} title="From the hub"$`)));
    // A sealed op shows its header only.
    expect(out).toContainEqual(expect.stringMatching(new RegExp(` write ${fx.ids.sealed} \\[sealed\\]$`)));
    expect(r.out).not.toContain('pin-secret-x');
  });

  it('starts at --from (inclusive), takes a bare position too, and stops at --limit', async () => {
    const from = `${info.epoch}.${info.head - 1}`;
    const r = await cli('log', fx.path, '--from', from);
    expect(r.out.trimEnd().split('\n').map((l) => l.split(' ')[0])).toEqual([from, info.eventId]);
    expect(r.out.trimEnd().split('\n').pop()).toMatch(new RegExp(` write ${fx.ids.tail[1]} n=2 title="tail"$`));
    expect((await cli('log', fx.path, `--from=${info.head}`)).out).toMatch(new RegExp(`^${info.eventId} `));
    expect((await cli('log', fx.path, '--from', '2', '--limit', '2')).out.trimEnd().split('\n').map((l) => l.split(' ')[0]))
      .toEqual([`${info.epoch}.2`, `${info.epoch}.3`]);
  });

  it('prints JSON lines with --json, a sealed op without its payload or signature', async () => {
    const r = await cli('log', fx.path, '--json');
    const out = r.out.trimEnd().split('\n').map((l) => JSON.parse(l) as { eventId: string; pos: number; flags: string[]; op: Record<string, unknown> });
    expect(out[0]).toMatchObject({ eventId: `${info.epoch}.1`, pos: 1, flags: [], op: { type: 'write', id: fx.ids.note, data: { title: 'Draft', body: 'first' } } });
    expect(out[0].op.sig).toEqual(expect.any(String));
    const sealed = out.find((l) => l.op.id === fx.ids.sealed);
    expect(sealed?.flags).toEqual(['sealed']);
    expect(Object.keys(sealed?.op ?? {}).sort()).toEqual(['id', 'origin', 'scope', 'seq', 'ts', 'type']);
  });

  it('refuses an event id of another epoch, beyond the head or malformed, with exit 2', async () => {
    expect(await cli('log', fx.path, '--from', 'other.3')).toMatchObject({ code: 2, err: `syncom: --from other.3 is from another log epoch; this log's epoch is ${info.epoch}\n` });
    expect((await cli('log', fx.path, '--from', `${info.epoch}.${info.head + 1}`)).err).toContain(`is beyond the head, ${info.eventId}`);
    expect((await cli('log', fx.path, '--from', 'x.y.'))).toMatchObject({ code: 2, err: expect.stringContaining('is no event id') });
  });

  it("writes a peer's text as text: an id or field name holding terminal controls (ESC[2J clears the screen) comes out escaped, and info leaves a hub url's credentials out, its --json too", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syncom-cli-controls-'));
    try {
      const path = join(dir, 'store');
      const s = await open({ path });
      await s.set('\u001b[2J\u001b[1;1Hcleared', { 'name\u001b[31m': 'red' });
      await s.sync.addNode({ url: 'http://admin:hunter2@hub.example/syncom?key=k' });
      await s.close();
      const log = await cli('log', path);
      expect(log.code).toBe(0);
      expect(log.out).not.toContain('\u001b');
      expect(log.out).toContain('\\u001b[2J\\u001b[1;1Hcleared');
      const shown = await cli('info', path);
      expect(shown.out).toContain('http://hub.example/syncom');
      expect(shown.out).not.toMatch(/hunter2|admin|key=k/);
      const json = await cli('info', path, '--json');
      expect(JSON.parse(json.out).nodes[0].url).toBe('http://hub.example/syncom');
      expect(json.out).not.toMatch(/hunter2|admin|key=k/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an id holding a line break stays on its op's line: a peer's 'x\\n<forged line>' cannot add a line to the log's text, nor to verify's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syncom-cli-breaks-'));
    try {
      const path = join(dir, 'store');
      const s = await open({ path });
      await s.set('x\n0000.1 abcdefgh.. 1 2026-01-01T00:00:00.000Z purge payroll\r\u2028', { ok: true });
      await s.close();
      const log = await cli('log', path);
      expect(log.code).toBe(0);
      expect(log.out.trimEnd().split('\n')).toHaveLength(1);
      expect(log.out).toContain('x\\u000a0000.1');
      expect(log.out).not.toMatch(/[\r\u2028]/);
      // Record files gone: verify names the record (its id) in a finding of its own line.
      for (const f of readdirSync(join(path, 'records'))) rmSync(join(path, 'records', f));
      const verify = await cli('verify', path);
      expect(verify.out).toContain('record x\\u000a0000.1');
      expect(verify.out).not.toMatch(/[\r\u2028]|^0000\.1/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
