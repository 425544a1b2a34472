/**
 * The broker connection's socket options, read off the real socket of a connection to a real (aedes) broker.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import type net from 'node:net';
import { MqttConnection } from '../../../gateway/mqtt/connection';
import { silentLogger } from '../../../gateway/logger';
import { eventually, startBroker, type TestBroker } from '../support/broker';
import { testConfig } from '../support/config';

/** Node keeps what `setNoDelay` last set under this symbol (the socket offers no getter). */
function noDelayOf(socket: net.Socket): unknown {
  const key = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'kSetNoDelay');
  assert.ok(key, 'this Node keeps kSetNoDelay on its sockets');
  return (socket as unknown as Record<symbol, unknown>)[key];
}

describe('gateway mqtt connection socket', function () {
  this.timeout(20000);
  let broker: TestBroker;
  let conn: MqttConnection | undefined;

  beforeEach(async () => {
    broker = await startBroker();
  });
  afterEach(async () => {
    await conn?.stop();
    conn = undefined;
    await broker.stop();
  });

  it('turns Nagle off on every connection, so a publish never waits for the TCP ACK of a QoS 0 one before it', async () => {
    const config = testConfig(os.tmpdir(), { mqtt: { enabled: true, url: broker.url } });
    const c = new MqttConnection({ config: config.mqtt, clientId: 'nodelay-test', will: { topic: 't/state', payload: 'offline' }, logger: silentLogger() });
    conn = c;
    const socketOf = (): net.Socket => (c as unknown as { client: { stream: net.Socket } }).client.stream;
    let ups = 0;
    c.on('up', () => {
      ups += 1;
    });
    c.start();
    await eventually(() => ups === 1, 10000, 'the first connection');
    assert.equal(noDelayOf(socketOf()), true);
    // A new connection is a new socket: it gets the option too.
    const first = socketOf();
    await broker.stop();
    await broker.restart();
    await eventually(() => ups === 2, 10000, 'the connection after the broker restart');
    assert.notEqual(socketOf(), first);
    assert.equal(noDelayOf(socketOf()), true);
  });
});
