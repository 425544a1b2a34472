/**
 * The PUBACKs the tap (gateway/mqtt/puback-tap.ts) leaves to mqtt.js: an MQTT 5 broker may put a reason string or
 * user properties in a PUBACK, and one longer than the tap reads goes through mqtt.js's parser. Neither aedes
 * (3.1.1) nor Mosquitto sends such PUBACKs, so the peer here is a minimal MQTT 5 broker on a real TCP socket, built
 * from mqtt-packet's parser and generator: it answers every QoS 1 publish with a PUBACK carrying a long reason
 * string, accepting some and refusing others.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import mqttPacket from 'mqtt-packet';
import { MqttConnection } from '../../../gateway/mqtt/connection';
import { GatewayError } from '../../../gateway/errors';
import { silentLogger } from '../../../gateway/logger';
import { eventually } from '../support/broker';
import { testConfig } from '../support/config';

const REFUSED = 0x87;
/** Long enough that the PUBACK is well over what the tap takes itself (64 bytes). */
const REASON = 'accepted by a broker that explains itself at length: '.repeat(4);

interface Peer {
  url: string;
  pubacks: number;
  close(): Promise<void>;
}

/** A broker of one MQTT 5 session: CONNACK, SUBACK, PINGRESP, and a long PUBACK per QoS 1 publish (refusing `refuse(topic)`). */
async function longPubackBroker(refuse: (topic: string) => boolean): Promise<Peer> {
  const sockets = new Set<net.Socket>();
  const peer = { url: '', pubacks: 0, close: async () => undefined as void };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const parser = mqttPacket.parser({ protocolVersion: 5 });
    const send = (packet: mqttPacket.Packet): void => void socket.write(mqttPacket.generate(packet, { protocolVersion: 5 }));
    parser.on('packet', (packet) => {
      if (packet.cmd === 'connect') send({ cmd: 'connack', sessionPresent: false, reasonCode: 0 });
      else if (packet.cmd === 'subscribe') send({ cmd: 'suback', messageId: packet.messageId!, granted: packet.subscriptions.map((s) => s.qos) });
      else if (packet.cmd === 'pingreq') send({ cmd: 'pingresp' });
      else if (packet.cmd === 'publish' && packet.qos === 1) {
        peer.pubacks += 1;
        send({ cmd: 'puback', messageId: packet.messageId!, reasonCode: refuse(packet.topic) ? REFUSED : 0, properties: { reasonString: REASON } });
      }
    });
    socket.on('data', (chunk) => parser.parse(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  peer.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return peer;
}

describe('gateway mqtt connection: PUBACKs too long for the tap', function () {
  this.timeout(20000);

  it('settles each of its own publishes once from an MQTT 5 PUBACK with a long reason string, refusals with their reason code', async () => {
    const peer = await longPubackBroker((topic) => topic.startsWith('refused/'));
    const config = testConfig(os.tmpdir(), { mqtt: { enabled: true, url: peer.url, version: 5, reconnect_min_ms: 50, reconnect_max_ms: 100 } });
    const conn = new MqttConnection({ config: config.mqtt, clientId: 'long-puback-test', will: { topic: 't/state', payload: 'offline' }, logger: silentLogger() });
    let up = false;
    conn.on('up', () => (up = true));
    conn.start();
    try {
      await eventually(() => up, 10000, 'the connection');
      const count = 300;
      const answers = new Map<number, Array<Error | undefined>>();
      for (let i = 0; i < count; i++) {
        conn.publish(i % 3 === 0 ? `refused/${i}` : `pub/${i}`, `payload ${i}`, { qos: 1 }, (err) => answers.set(i, [...(answers.get(i) ?? []), err]));
      }
      await eventually(() => answers.size === count, 10000, `${count} answers`);
      assert.equal(peer.pubacks, count);
      for (let i = 0; i < count; i++) {
        const got = answers.get(i)!;
        assert.equal(got.length, 1, `publish ${i} answered ${got.length} times`);
        if (i % 3 === 0) {
          assert.ok(got[0] instanceof GatewayError && got[0].code === 'MQTT_PUBLISH_REFUSED', `publish ${i}: ${String(got[0])}`);
          assert.equal((got[0] as GatewayError).details?.reasonCode, REFUSED);
        } else assert.equal(got[0], undefined, `publish ${i}`);
      }
    } finally {
      await conn.stop();
      await peer.close();
    }
  });
});
