import { describeBrowser } from './harness/chromium';
import { pageAndHubs } from './harness/page-and-hubs';

const TOKEN = 't';

describeBrowser('browser store on OPFS', () => {
  const { env, hubs } = pageAndHubs();

  it('REG-8 REG-7: a reload keeps the records, the node id and the registry (its remote/ file), and resumes without a bootstrap', async () => {
    const hub = await hubs.start('reg', { webDir: false });
    const { page, kit } = await env.tab(await env.context());
    const first = await kit.open('notes', { hub: { url: hub.syncomUrl, token: TOKEN } });
    const ids = [await kit.insert('notes', { title: 'one' }), await kit.insert('notes', { title: 'two' })];
    await kit.synced('notes', hub.syncomUrl);
    // Files are still being written (records, a seal) after the writes resolve: a listing mid-write can meet a
    // file that is gone by the time it is read.
    await kit.idle('notes');
    expect((await kit.files('notes')).map((f) => f.path)).toContainEqual(expect.stringMatching(/^remote\//));

    await page.reload();
    await page.waitForFunction(() => 'kit' in globalThis);
    expect(await kit.open('notes')).toEqual(first);
    expect(await kit.nodes('notes')).toEqual([hub.syncomUrl]);
    for (const [i, id] of ids.entries()) expect(await kit.get('notes', id)).toEqual({ title: i ? 'two' : 'one' });
    // A write made after the reload reaches the hub through the registry kept in OPFS, on the kept cursor.
    const third = await kit.insert('notes', { title: 'three' });
    await kit.synced('notes', hub.syncomUrl);
    expect(await hub.storage.get(third)).toEqual({ title: 'three' });
    expect(await kit.bootstraps('notes')).toBe(0);
  });

  it('two tabs on one store: the second open fails LOCKED and writes nothing; with wait it opens once the first tab closes', async () => {
    const context = await env.context();
    const a = await env.tab(context);
    const b = await env.tab(context);
    const opened = await a.kit.open('shared');
    const id = await a.kit.insert('shared', { by: 'a' });
    // The insert resolved once its batch was in the log; its record file is written after: wait for it, or the
    // snapshot below catches the file mid-write.
    await a.kit.idle('shared');
    const files = await a.kit.files('shared');

    // The message says where `wait` goes (the backend: open() refuses it as an unknown option), and counts this
    // page's own open() among the holders: the same refusal meets a second open() in tab A.
    const locked = { code: 'LOCKED', message: expect.stringMatching(/another tab, worker or open\(\) of this page has it open.*the backend with \{ wait: true \}/) };
    expect(await b.kit.open('shared')).toEqual({ error: expect.objectContaining(locked) });
    expect(await a.kit.open('shared')).toEqual({ error: expect.objectContaining(locked) });
    // B wrote nothing, neither refused nor waiting: A's files are as A left them.
    expect(await a.kit.files('shared')).toEqual(files);
    const waiting = b.kit.open('shared', { wait: true });
    expect(await a.kit.files('shared')).toEqual(files);
    await a.kit.insert('shared', { by: 'a', again: true });
    await a.kit.close('shared');

    expect(await waiting).toEqual(opened);
    expect(await b.kit.get('shared', id)).toEqual({ by: 'a' });
    expect(await b.kit.count('shared')).toBe(2);
  });

  it('GUAR-18: cutting the newest OPFS file (a torn last write) loses at most the newest batch; the store reopens and writes on', async () => {
    const { kit } = await env.tab(await env.context());
    // Each kind of file a batch writes: the newest record file, the newest log segment, and the newest of all.
    for (const under of ['records/', 'log/seg', '']) {
      const name = `torn-${under.replace(/\W/g, '') || 'any'}`;
      await kit.open(name);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await kit.insert(name, { i }));
      await kit.close(name);
      const cut = await kit.cutNewest(name, 0.5, under);
      expect(cut.cut).toBeLessThan(cut.size);
      // A torn log/index.json (the newest file after a seal) is read from the copy written just before it, log/index.next.json.
      expect(await kit.open(name)).toHaveProperty('id');
      for (const [i, id] of ids.slice(0, -1).entries()) expect([cut.path, await kit.get(name, id)]).toEqual([cut.path, { i }]);
      const after = await kit.insert(name, { after: true });
      await kit.close(name);
      await kit.open(name);
      expect(await kit.get(name, after)).toEqual({ after: true });
      await kit.close(name);
    }
  });
});
