import { open } from '../../src';

describe('storage smoke', () => {
  it('writes and reads on the memory backend', async () => {
    const s = await open({ path: 'x', backend: 'memory' });
    const id = await s.insert({ title: 'Draft' });
    await s.inc(id, 'views', 1);
    await s.add(id, 'tags', ['bug', 'ui']);
    await s.remove(id, 'tags', ['ui']);
    await s.update(id, { title: 'Final' });
    expect(await s.get(id)).toEqual({ title: 'Final', views: 1, tags: ['bug'] });
    await expect(s.update(id, { views: 10 })).rejects.toThrow('views is a counter; use inc()');
    await s.close();
  });
});
