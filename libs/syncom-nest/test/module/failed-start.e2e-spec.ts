import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, Storage } from 'syncom';
import { SyncomModule } from '../../src';
import { startApp } from '../helpers/start-app';

const dir = mkdtempSync(join(tmpdir(), 'syncom-nest-failed-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const path = () => join(dir, `s${++n}`);

/** What the storage was when the app's own code last saw it. */
let seen: Storage | undefined;

/** Takes the storage in its constructor and refuses to start in onModuleInit (a database out of reach). */
@Injectable()
class FailsAtInit implements OnModuleInit {
  constructor(storage: Storage) {
    seen = storage;
  }
  onModuleInit(): void {
    throw new Error('database out of reach');
  }
}

/** An app of SyncomModule.forRoot({ path }) and a provider whose factory throws once the storage opened. */
function failsInFactory(at: string) {
  @Module({
    imports: [SyncomModule.forRoot({ path: at })],
    providers: [{ provide: 'CONFIG', inject: [Storage], useFactory: (s: Storage) => { seen = s; throw new Error('config missing'); } }],
  })
  class App {}
  return App;
}

describe('SyncomModule.forRoot with no usable path', () => {
  it('a path that is no string refuses the start with open()\'s INVALID_ARGUMENT naming it, not a TypeError', async () => {
    for (const bad of [undefined, 5]) {
      await expect(startApp({ path: bad as never })).rejects.toMatchObject({ name: 'SyncomError', code: 'INVALID_ARGUMENT', option: 'path' });
    }
  });
});

describe('a start that fails after the storage opened', () => {
  beforeEach(() => { seen = undefined; });

  it('a second module on the same path refuses the start LOCKED, saying to import one module, and the first module\'s store is closed again (the path opens)', async () => {
    const at = path();
    @Module({ imports: [SyncomModule.forRoot({ path: at })] }) class A {}
    @Module({ imports: [SyncomModule.forRoot({ path: at })] }) class B {}
    @Module({ imports: [A, B] }) class App {}
    // The engine's own words ("this process has it open already. Close that storage first.") named nothing the app could close.
    await expect(NestFactory.create(App, { logger: false, abortOnError: false })).rejects.toMatchObject({
      code: 'LOCKED', path: at, message: expect.stringContaining('2 SyncomModules of this app open'),
    });
    const again = await open({ path: at });
    await again.close();
  });

  it('a provider\'s factory that throws leaves a store Nest cannot close; the next start on its path closes it and takes the path', async () => {
    const at = path();
    await expect(NestFactory.create(failsInFactory(at), { logger: false, abortOnError: false })).rejects.toThrow('config missing');
    const orphan = seen!;
    expect(orphan.isClosed).toBe(false);
    const app = await startApp({ path: at });
    expect(orphan.isClosed).toBe(true);
    await app.get(Storage).insert({ title: 'after the failed start' });
    await app.close();
  });

  it('a provider\'s onModuleInit that throws: the next start on the path closes the store too, and so does app.close() on the failed app', async () => {
    const at = path();
    const build = async () => (await Test.createTestingModule({ imports: [SyncomModule.forRoot({ path: at })], providers: [FailsAtInit] }).compile()).createNestApplication({ logger: false });
    const failed = await build();
    await expect(failed.init()).rejects.toThrow('database out of reach');
    const orphan = seen!;
    const app = await startApp({ path: at });
    expect(orphan.isClosed).toBe(true);
    await app.close();

    const closing = await build();
    await expect(closing.init()).rejects.toThrow('database out of reach');
    await closing.close();
    expect(seen!.isClosed).toBe(true);
    await (await open({ path: at })).close();
  });

  it('an app that started keeps its store: a second start on its path is LOCKED and the first goes on writing', async () => {
    const at = path();
    const first = await startApp({ path: at });
    await expect(startApp({ path: at })).rejects.toMatchObject({ code: 'LOCKED' });
    await first.get(Storage).insert({ title: 'still mine' });
    expect(await first.get(Storage).list({})).toHaveLength(1);
    await first.close();
  });

  it('an app made but not started yet loses its store to a later start on the path, and its init then fails LOCKED rather than run on a closed store', async () => {
    const at = path();
    const pending = (await Test.createTestingModule({ imports: [SyncomModule.forRoot({ path: at })] }).compile()).createNestApplication({ logger: false });
    const app = await startApp({ path: at });
    await expect(pending.init()).rejects.toMatchObject({ code: 'LOCKED', message: expect.stringContaining(at) });
    await app.get(Storage).insert({ title: 'the later start' });
    await pending.close();
    await app.close();
  });
});
