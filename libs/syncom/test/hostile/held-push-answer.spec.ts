import 'reflect-metadata';
import { buildNoteClass } from '../schema/fixtures';
import { hub, node } from '../sync/helpers';
import { greet, opsOf, push } from '../sync/scenario-helpers';

const v1 = { version: 1, ahead: 'hold' as const, types: { Note: buildNoteClass() } };
const v2 = { version: 2, types: { Note: buildNoteClass() } };

/**
 * A push answer counts each op of the page once (src/sync/protocol/PROTOCOL.md):
 * an op a host holds for a newer schema is logged and relayed, not applied
 * yet, and was in no field of the answer, so a dialer or an operator adding
 * the fields up found ops missing.
 */
describe('hostile: a push of ops a host holds for a newer schema', () => {
  it('SCHEMA-7 GUAR-26 HOST-20: the answer counts them `held`, and every op of the page is in one field', async () => {
    const h = await hub({}, { schema: v1 });
    const writer = await node({ schema: v2 });
    for (let i = 0; i < 3; i++) await writer.insert({ $type: 'Note', title: `n${i}`, tags: [] });
    const ops = opsOf(writer);
    const ans = await push(h.unit, await greet(h.unit, writer), [...ops, ops[0]]);
    expect(ans).toMatchObject({ held: 3, applied: 0, duplicates: 1 });
    const fields = ['applied', 'skipped', 'duplicates', 'gaps', 'malformed', 'unsigned', 'forged', 'outOfScope', 'held'];
    expect(fields.reduce((n, k) => n + (ans[k] as number), 0)).toBe(ops.length + 1);
    await Promise.all([h.s.close(), writer.close()]);
  });
});
