import type { OpenOptions } from '../../src';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { wrapUnit } from '../sync/scenario-helpers';

/**
 * A hello carries the dialer's own streams (docs/security.md, A socket
 * without a token): the host reads none of them, the dialer compares. A
 * host the node dials for some scopes is a relay of those scopes alone: the
 * names of the node's other scopes and how much it wrote in each are not
 * its to read, as a host serves a peer the streams of its scopes alone.
 */

const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
const scoped: Partial<OpenOptions> = { sync: { scope: typed } };

describe('hostile: what a host dialed for one scope reads of the node\'s others in hello', () => {
  it('SCOPE-20 PROTO-4: a node dialing a host for Doc greets it with its own streams of Doc and the global scope, none of Payroll', async () => {
    const h = await hub({}, scoped);
    const hellos: { vector: Record<string, number> }[] = [];
    const net = new Net();
    net.units.set('memory://h', wrapUnit(h.unit, (method, args, _context, next) => {
      if (method === 'hello') hellos.push(args as { vector: Record<string, number> });
      return next();
    }));
    const d = await dialer(net, { sync: { connect: net.connect, scope: typed, antiEntropyInterval: 0 } });
    await d.insert({ $type: 'Doc', title: 'shared' });
    await d.insert({ $type: 'Payroll', salary: 1 });
    await d.insert({ $type: 'Payroll', salary: 2 });
    await d.insert({ note: 'global' });
    await d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['Doc'] });
    await until(() => hellos.length > 0, [d]);
    const keys = Object.keys(hellos[0].vector).sort();
    expect(keys).toEqual([d.id, `${d.id}@Doc`].sort());
    await closeAll(d, h.s);
  });
});
