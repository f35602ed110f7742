/* eslint-disable */
// The attacker of unauthenticated.e2e-spec.ts: raw socket.io clients without a token, in a process of
// their own, so that building and sending the messages costs the hub's process (the test's) nothing.
// argv: the gateway's url, then the steps as JSON: [{ event, build, repeat? }], each message sent once the last was answered.
// Each message's outcome is printed as one JSON line: { step, ack } or { step, closed, exception }.
'use strict';
const { io } = require('socket.io-client');

const [url, stepsJson] = process.argv.slice(2);
const nsp = new URL(url).pathname;
const origin = (i) => 'A'.repeat(38) + String(i).padStart(5, '0');

function manyKeys(n, value = (i) => i) {
  const o = {};
  for (let i = 0; i < n; i++) o['k' + i] = value(i);
  return o;
}

function vector(entries, bad) {
  const v = {};
  for (let i = 0; i < entries; i++) v[origin(i)] = i === bad ? -1 : i;
  return v;
}

/** The message bodies a step can build. */
const builders = {
  hello: (b) => ({
    node: b.node || 'attacker', vector: vector(b.entries || 0, b.bad), epoch: 'e', schema: null, scopes: ['*'],
    token: b.token === undefined ? 'wrong' : b.token, ...(b.extra ? { extra: manyKeys(b.extra) } : {}),
  }),
  chunk: (b) => ({ stream: 's', extra: manyKeys(b.extra) }),
  reconcile: (b) => ({ scope: '*', msg: manyKeys(b.keys, (i) => [i]) }),
  push: (b) => ({ ops: [], extra: manyKeys(b.extra, (i) => 'v' + i) }),
};

function connect() {
  // ATTACK_TOKEN: a handshake token, for the one honest client of the suite (a session hub's).
  const auth = process.env.ATTACK_TOKEN ? { token: process.env.ATTACK_TOKEN } : undefined;
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, auth });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

let nextId = 1;

/** Writes one event as raw text (prebuilt: no serializing here) and resolves with its ack, or with the close that came instead. */
function send(socket, event, bodyText) {
  const id = nextId++;
  const engine = socket.io.engine;
  return new Promise((resolve) => {
    let exception;
    const onException = (e) => { exception = e; };
    const onPacket = (packet) => {
      const prefix = `3${nsp},${id}`;
      if (packet.type !== 'message' || typeof packet.data !== 'string' || !packet.data.startsWith(prefix)) return;
      done({ ack: JSON.parse(packet.data.slice(prefix.length))[0] });
    };
    const onClose = () => done({ closed: true, exception });
    const done = (outcome) => {
      engine.off('packet', onPacket);
      socket.off('exception', onException);
      socket.off('disconnect', onClose);
      resolve(outcome);
    };
    socket.on('exception', onException);
    socket.on('disconnect', onClose);
    engine.on('packet', onPacket);
    if (!socket.connected) return onClose();
    engine.write(`2${nsp},${id}[${JSON.stringify(event)},${bodyText}]`);
  });
}

async function run() {
  const steps = JSON.parse(stepsJson);
  for (const [index, step] of steps.entries()) {
    const text = JSON.stringify(builders[step.event](step.build || {}));
    const repeat = step.repeat || 1;
    let socket;
    const outcomes = [];
    for (let r = 0; r < repeat; r++) {
      // A new connection where the hub closed the last one.
      if (!socket || !socket.connected) socket = await connect();
      outcomes.push(await send(socket, step.event, text));
    }
    for (const outcome of outcomes) process.stdout.write(JSON.stringify({ step: index, ...outcome }) + '\n');
    socket.disconnect();
  }
}

run().then(() => process.exit(0), (e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
