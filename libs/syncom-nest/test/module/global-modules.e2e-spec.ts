import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, Storage } from 'syncom';
import { SyncomModule } from '../../src';

const dir = mkdtempSync(join(tmpdir(), 'syncom-nest-global-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const path = () => join(dir, `s${++n}`);

/** A provider of a module that imports no SyncomModule: it gets whatever Storage is global. */
@Injectable()
class Notes {
  constructor(readonly storage: Storage) {}
}

describe('SyncomModule: isGlobal on more than one module of an app', () => {
  it('two global stores refuse the start with INVALID_ARGUMENT naming isGlobal, before either opens (Storage had injected one of them, unsaid which)', async () => {
    const [a, b] = [path(), path()];
    @Module({ providers: [Notes] }) class Feature {}
    @Module({
      imports: [
        SyncomModule.forRoot({ path: a, isGlobal: true, logSync: false }),
        SyncomModule.forRootAsync({ isGlobal: true, useFactory: () => ({ path: b, logSync: false }) }),
        Feature,
      ],
    })
    class App {}
    await expect(NestFactory.create(App, { logger: false, abortOnError: false })).rejects.toMatchObject({
      name: 'SyncomError', code: 'INVALID_ARGUMENT', option: 'isGlobal', message: expect.stringContaining('2 SyncomModules'),
    });
    // Neither store was left open: both paths open at once.
    for (const at of [a, b]) await (await open({ path: at })).close();
  });

  it('one global store and one in a feature module of its own start: the feature injects its own, every other module the global one', async () => {
    const [global, own] = [path(), path()];
    @Injectable() class Local { constructor(readonly storage: Storage) {} }
    @Module({ imports: [SyncomModule.forRoot({ path: own, logSync: false })], providers: [Local] }) class Feature {}
    @Module({ providers: [Notes] }) class Other {}
    @Module({ imports: [SyncomModule.forRoot({ path: global, isGlobal: true, logSync: false }), Feature, Other] }) class App {}
    const app = await NestFactory.create(App, { logger: false, abortOnError: false });
    await app.init();
    const id = await app.get(Local).storage.insert({ title: 'local' });
    expect(await app.get(Notes).storage.has(id)).toBe(false);
    expect(app.get(Local).storage).not.toBe(app.get(Notes).storage);
    await app.close();
  });

  // Nest reads isGlobal only beside the factory. Where a feature module injects the store, Nest's "can't resolve
  // dependencies" comes first; where none does yet, the app had started with a module that was not global.
  it('isGlobal in what a forRootAsync factory returns refuses the start with INVALID_ARGUMENT saying to give it beside useFactory; false passes', async () => {
    const at = path();
    @Module({ imports: [SyncomModule.forRootAsync({ useFactory: () => ({ path: at, isGlobal: true, logSync: false }) })] }) class App {}
    await expect(NestFactory.create(App, { logger: false, abortOnError: false })).rejects.toMatchObject({
      name: 'SyncomError', code: 'INVALID_ARGUMENT', option: 'isGlobal', message: expect.stringContaining('forRootAsync({ isGlobal: true, useFactory })'),
    });
    @Module({ imports: [SyncomModule.forRootAsync({ useFactory: () => ({ path: at, isGlobal: false, logSync: false }) })] }) class Plain {}
    const app = await NestFactory.create(Plain, { logger: false, abortOnError: false });
    await app.close();
  });
});
