import { type CanActivate, Injectable, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway, WsException } from '@nestjs/websockets';
import type { AddressInfo } from 'node:net';
import { of } from 'rxjs';
import type { Socket } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { SyncomIoAdapter } from '../../src/gateway';

@Injectable()
class Refuse implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@WebSocketGateway({ namespace: '/t' })
class TestGateway {
  @SubscribeMessage('value')
  value(@MessageBody() body: { n: number }): { twice: number } {
    return { twice: body.n * 2 };
  }

  @SubscribeMessage('later')
  async later(@MessageBody() body: string): Promise<string> {
    await Promise.resolve();
    return `later ${body}`;
  }

  @SubscribeMessage('event')
  event(@MessageBody() body: string): { event: string; data: string } {
    return { event: 'told', data: body };
  }

  @SubscribeMessage('stream')
  stream(): unknown {
    return of(1, 2);
  }

  @SubscribeMessage('nothing')
  nothing(@ConnectedSocket() socket: Socket): undefined {
    socket.emit('nothing-done');
    return undefined;
  }

  @UseGuards(Refuse)
  @SubscribeMessage('refused')
  refused(): string {
    return 'never';
  }

  @SubscribeMessage('throws')
  throws(): string {
    throw new WsException('no');
  }
}

/** What a message's answers are, as Nest's own socket.io adapter gives them: the adapter apps/hub uses. */
describe('SyncomIoAdapter: each handler a plain listener, answering as Nest\'s adapter does', () => {
  let app: Awaited<ReturnType<typeof start>>;
  let client: ClientSocket;
  const start = async () => {
    const moduleRef = await Test.createTestingModule({ providers: [TestGateway] }).compile();
    const a = moduleRef.createNestApplication({ logger: false });
    a.useWebSocketAdapter(new SyncomIoAdapter(a));
    await a.listen(0, '127.0.0.1');
    return a;
  };
  beforeAll(async () => {
    app = await start();
    const { port } = app.getHttpServer().address() as AddressInfo;
    client = io(`http://127.0.0.1:${port}/t`, { transports: ['websocket'], reconnection: false });
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  });
  afterAll(async () => {
    client.close();
    await app.close();
  });

  it('a value and a promise answer the ack; { event, data } is emitted as that event; each value of a stream is answered', async () => {
    expect(await client.emitWithAck('value', { n: 21 })).toEqual({ twice: 42 });
    expect(await client.emitWithAck('later', 'x')).toBe('later x');
    const told = new Promise((resolve) => client.once('told', resolve));
    client.emit('event', 'hi');
    expect(await told).toBe('hi');
    // The ack is called once: the first value of the stream answers it.
    expect(await client.emitWithAck('stream')).toBe(1);
  });

  it('undefined answers nothing; a guard refusal and a thrown WsException reach the client as Nest\'s "exception" event', async () => {
    const done = new Promise((resolve) => client.once('nothing-done', resolve));
    let answered = false;
    client.emit('nothing', 'x', () => (answered = true));
    await done;
    // A message sent after it is answered: one sent before it would have been too.
    expect(await client.emitWithAck('value', { n: 1 })).toEqual({ twice: 2 });
    expect(answered).toBe(false);
    for (const message of ['refused', 'throws']) {
      const exception = new Promise((resolve) => client.once('exception', resolve));
      client.emit(message, {});
      expect(await exception).toEqual(expect.objectContaining({ status: 'error' }));
    }
  });
});
