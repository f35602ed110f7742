import { type CallHandler, type CanActivate, type ExecutionContext, type INestApplication, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { Test } from '@nestjs/testing';
import type { Observable } from 'rxjs';
import type { Socket as ClientSocket } from 'socket.io-client';
import { SYNCOM_PROCEDURE, syncomProcedureOf, SyncomModule } from '../../src';
import { rawSocket } from '../helpers/dialer';

const HELLO = { node: 'guarded-node', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
const META = { rateLimit: { hello: 10, changes: 10, snapshot: 10, push: 0 } };

/** What the app's guard saw of each message: the procedure by Reflector, and syncomProcedureOf's answer. */
const seen: { byReflector: unknown; call: unknown }[] = [];
/** What the app's interceptor ran around: syncomProcedureOf's answer, else the message's name. */
const intercepted: unknown[] = [];

/** An app's rate guard: a procedure whose meta.rateLimit is 0 is refused (403 FORBIDDEN on the ack). */
@Injectable()
class RateGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const call = syncomProcedureOf(context);
    seen.push({ byReflector: this.reflector.get(SYNCOM_PROCEDURE, context.getHandler()), call });
    const limits = call?.meta?.rateLimit as Record<string, number> | undefined;
    return call === undefined || limits?.[call.procedure] !== 0;
  }
}

const counting: NestInterceptor = {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    intercepted.push(syncomProcedureOf(context) ?? context.switchToWs().getPattern());
    return next.handle();
  },
};

describe("the app's own guards and interceptors on the hosted gateway (HOST-8)", () => {
  let app: INestApplication | undefined;
  let socket: ClientSocket | undefined;

  afterEach(async () => {
    socket?.disconnect();
    await app?.close();
    seen.length = 0;
    intercepted.length = 0;
  });

  async function host(module: ReturnType<typeof SyncomModule.forRoot>): Promise<ClientSocket> {
    const ref = await Test.createTestingModule({ imports: [module] }).compile();
    app = ref.createNestApplication({ logger: false });
    app.useWebSocketAdapter(new IoAdapter(app));
    await app.listen(0, '127.0.0.1');
    socket = await rawSocket(`${await app.getUrl()}/syncom`);
    return socket;
  }

  it('HOST-8 a guard given as gateway.guards reads the procedure and the unit meta from its ExecutionContext on hello, changes and snapshot, and refuses push by meta.rateLimit (403 FORBIDDEN over socket.io)', async () => {
    const s = await host(SyncomModule.forRoot({
      path: 'guarded', backend: 'memory', gateway: { access: 'public', meta: META, guards: [RateGuard], interceptors: [counting] },
    }));
    const ask = (event: string, body: object) => s.timeout(5000).emitWithAck(event, body) as Promise<{ ok: boolean; error?: object }>;
    expect(await ask('hello', HELLO)).toMatchObject({ ok: true });
    expect(await ask('changes', { sub: 'a' })).toMatchObject({ ok: true });
    expect(await ask('snapshot', {})).toMatchObject({ ok: true });
    expect(await ask('push', { ops: [] })).toEqual({ ok: false, error: expect.objectContaining({ code: 'FORBIDDEN', status: 403 }) });
    expect(await ask('unsubscribe', { sub: 'a' })).toMatchObject({ ok: true });

    const procedures = ['hello', 'changes', 'snapshot', 'push'];
    expect(seen).toEqual([
      ...procedures.map((procedure) => ({ byReflector: procedure, call: { procedure, meta: META } })),
      // unsubscribe carries on the feed changes opened: no procedure of its own.
      { byReflector: undefined, call: undefined },
    ]);
    // Interceptors run once the guards let a message through: push was refused before.
    expect(intercepted).toEqual([...procedures.slice(0, 3).map((procedure) => ({ procedure, meta: META })), 'unsubscribe']);
  });

  it('HOST-8 forRootAsync takes the guards beside useFactory; a factory naming guards the module was not declared with refuses to start (GATEWAY_UNDECLARED)', async () => {
    const s = await host(SyncomModule.forRootAsync({
      gateway: { guards: [RateGuard] },
      useFactory: () => ({ path: 'guarded-async', backend: 'memory' as const, gateway: { access: 'public' as const, meta: META } }),
    }));
    expect(await s.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
    expect(await s.timeout(5000).emitWithAck('push', { ops: [] })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(seen.map((x) => x.call)).toEqual([{ procedure: 'hello', meta: META }, { procedure: 'push', meta: META }]);

    const late = Test.createTestingModule({ imports: [SyncomModule.forRootAsync({
      gateway: true,
      useFactory: () => ({ path: 'late', backend: 'memory' as const, gateway: { access: 'public' as const, guards: [RateGuard] } }),
    })] }).compile();
    await expect(late).rejects.toMatchObject({ code: 'GATEWAY_UNDECLARED', message: expect.stringContaining('gateway.guards') });
  });

  it('HOST-8 without gateway.guards the gateway still names each procedure, and syncomProcedureOf gives no meta where none was set', async () => {
    const s = await host(SyncomModule.forRoot({ path: 'plain', backend: 'memory', gateway: { access: 'public', interceptors: [counting] } }));
    expect(await s.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
    expect(intercepted).toEqual([{ procedure: 'hello', meta: undefined }]);
    expect(seen).toEqual([]);
  });

  it.each([['an object with no prototype', () => Object.create(null) as unknown], ['an object whose toString throws', () => ({ toString() { throw new Error('no text'); } })]])('HOST-8 a guard that throws %s is answered 500 INTERNAL, under Nest\'s IoAdapter too; the process goes on', async (_what, thrown) => {
    const throwing: CanActivate = { canActivate() { throw thrown(); } };
    const s = await host(SyncomModule.forRoot({ path: 'guarded', backend: 'memory', gateway: { access: 'public', guards: [throwing] } }));
    // String() of such a value throws: in the filter's log line that error reached no handler and ended the process.
    expect(await s.timeout(5000).emitWithAck('hello', HELLO)).toEqual({ ok: false, error: expect.objectContaining({ code: 'INTERNAL', status: 500 }) });
  });

  it('HOST-8 a guard or interceptor that is none is refused when the module is defined (INVALID_ARGUMENT naming it), not left to Nest\'s decorator', () => {
    const bad = (gateway: object) => () => SyncomModule.forRoot({ path: 'bad', backend: 'memory', gateway: { access: 'public', ...gateway } });
    expect(bad({ guards: ['RateGuard'] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', option: 'gateway.guards' }));
    expect(bad({ interceptors: [{}] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', option: 'gateway.interceptors' }));
    expect(bad({ guards: [RateGuard, new RateGuard(new Reflector())], interceptors: [counting] })).not.toThrow();
  });
});
