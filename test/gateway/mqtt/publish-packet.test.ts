/**
 * The gateway's own PUBLISH encoder against mqtt-packet, the encoder and parser mqtt.js itself uses: byte for byte
 * the same packet for any topic, payload and property set it covers, on MQTT 3.1.1 and 5, and parsed back to what was
 * asked for.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import mqttPacket from 'mqtt-packet';
import { encodePublish, type PublishPacket, type PublishProperties } from '../../../gateway/mqtt/publish-packet';

function reference(p: PublishPacket, version: 4 | 5): Buffer {
  const packet: Record<string, unknown> = { cmd: 'publish', topic: p.topic, payload: p.payload, qos: p.qos, retain: p.retain, dup: false };
  if (p.qos) packet.messageId = p.packetId;
  if (version === 5 && p.properties) packet.properties = p.properties;
  return mqttPacket.generate(packet as unknown as mqttPacket.IPublishPacket, { protocolVersion: version });
}

function parse(bytes: Buffer, version: 4 | 5): mqttPacket.IPublishPacket {
  const parser = mqttPacket.parser({ protocolVersion: version });
  const got: mqttPacket.Packet[] = [];
  parser.on('packet', (p) => got.push(p));
  parser.on('error', (err) => assert.fail(err));
  assert.equal(parser.parse(bytes), 0, 'nothing left over');
  assert.equal(got.length, 1);
  return got[0] as mqttPacket.IPublishPacket;
}

const unicode = fc.string({ unit: 'grapheme', maxLength: 40 });
const properties: fc.Arbitrary<PublishProperties> = fc.record(
  {
    payloadFormatIndicator: fc.boolean(),
    messageExpiryInterval: fc.integer({ min: 0, max: 0xffffffff }),
    contentType: unicode,
    responseTopic: unicode.filter((s) => s.length > 0),
    correlationData: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    userProperties: fc.dictionary(unicode.filter((s) => s.length > 0 && s !== '__proto__'), fc.oneof(unicode, fc.array(unicode, { minLength: 1, maxLength: 3 })), { minKeys: 1, maxKeys: 4 }),
    // (An empty dictionary is left out: mqtt-packet writes nothing at all for it; here it writes no property.)
  },
  { requiredKeys: [] },
);
const packet: fc.Arbitrary<PublishPacket> = fc.record({
  topic: unicode.filter((s) => s.length > 0),
  payload: fc.oneof(unicode, fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a))),
  qos: fc.constantFrom(0 as const, 1 as const),
  retain: fc.boolean(),
  packetId: fc.integer({ min: 1, max: 65535 }),
  properties: fc.option(properties, { nil: undefined }),
});

describe('gateway PUBLISH encoder', () => {
  for (const version of [4, 5] as const) {
    it(`writes the bytes mqtt-packet writes, MQTT ${version === 5 ? '5' : '3.1.1'} (property test)`, () => {
      fc.assert(
        fc.property(packet, (p) => {
          const ours = encodePublish(p, version);
          assert.ok(ours);
          assert.deepEqual(ours, reference(p, version));
          const back = parse(ours, version);
          assert.equal(back.topic, p.topic);
          assert.deepEqual(back.payload, Buffer.from(p.payload as string));
          assert.equal(back.qos, p.qos);
          assert.equal(back.retain, p.retain);
          if (p.qos) assert.equal(back.messageId, p.packetId);
        }),
        { numRuns: 400 },
      );
    });
  }

  it('writes each length at the edges of the variable byte integer (1 to 4 bytes)', () => {
    for (const size of [0, 1, 120, 121, 122, 127, 128, 16_370, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const p: PublishPacket = { topic: 't', payload: Buffer.alloc(size, 7), qos: 1, retain: true, packetId: 9, properties: { contentType: 'application/json', userProperties: { message_id: 'x' } } };
      for (const version of [4, 5] as const) assert.deepEqual(encodePublish(p, version), reference(p, version), `payload ${size}, version ${version}`);
    }
  });

  it('leaves to mqtt.js what it does not write: another property, a topic over 65 535 bytes, a string property over it', () => {
    const base: PublishPacket = { topic: 't', payload: 'x', qos: 1, retain: false, packetId: 1 };
    assert.equal(encodePublish({ ...base, properties: { topicAlias: 3 } as PublishProperties }, 5), undefined);
    assert.equal(encodePublish({ ...base, topic: 'é'.repeat(32_768) }, 4), undefined);
    assert.equal(encodePublish({ ...base, properties: { contentType: 'a'.repeat(65_536) } }, 5), undefined);
    assert.equal(encodePublish({ ...base, properties: { userProperties: { k: ['ok', 'v'.repeat(65_536)] } } }, 5), undefined);
    assert.deepEqual(encodePublish({ ...base, properties: { userProperties: {} } }, 5), reference(base, 5));
    // MQTT 3.1.1 has no properties: they are not written, whatever they are.
    assert.deepEqual(encodePublish({ ...base, properties: { topicAlias: 3 } as PublishProperties }, 4), reference(base, 4));
  });
});
