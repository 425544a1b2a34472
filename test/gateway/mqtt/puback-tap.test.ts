/**
 * The PUBACK tap between the broker's socket and mqtt.js: whatever the packets and wherever the socket cuts them,
 * the gateway's own PUBACKs are taken (with their reason codes, in order) and mqtt.js receives every other byte, in
 * order, as mqtt-packet would have read it straight from the socket.
 */
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import fc from 'fast-check';
import mqttPacket from 'mqtt-packet';
import { PubackTap } from '../../../gateway/mqtt/puback-tap';

interface Sent {
  bytes: Buffer;
  /** A PUBACK the tap should take: its id and reason code. */
  taken?: { id: number; code: number };
}

/** Streams `chunks` through a tap into a real Writable, as the socket is piped to mqtt.js. */
async function run(chunks: Buffer[], own: (id: number) => boolean): Promise<{ taken: Array<{ id: number; code: number }>; forwarded: Buffer }> {
  const taken: Array<{ id: number; code: number }> = [];
  const got: Buffer[] = [];
  const mqttSide = new Writable({
    write(chunk: Buffer, _enc, done) {
      got.push(Buffer.from(chunk));
      // mqtt.js finishes its packets on later ticks: the tap must wait for it, not assume it is done at once.
      setImmediate(done);
    },
  });
  const tap = new PubackTap(mqttSide, (id, code) => {
    if (!own(id)) return false;
    taken.push({ id, code });
    return true;
  });
  Readable.from(chunks, { objectMode: false }).pipe(tap);
  await finished(mqttSide);
  return { taken, forwarded: Buffer.concat(got) };
}

const OWN_BELOW = 30_000;
const own = (id: number): boolean => id < OWN_BELOW;

const packetId = fc.integer({ min: 1, max: 65_535 });
const puback3: fc.Arbitrary<Sent> = packetId.map((id) => ({ bytes: mqttPacket.generate({ cmd: 'puback', messageId: id }, { protocolVersion: 4 }), taken: own(id) ? { id, code: 0 } : undefined }));
const puback5: fc.Arbitrary<Sent> = fc
  .record({ id: packetId, code: fc.constantFrom(0, 0x10, 0x80, 0x87, 0x97), reason: fc.option(fc.string({ maxLength: 80 }), { nil: undefined }) })
  .map(({ id, code, reason }) => {
    const bytes = mqttPacket.generate({ cmd: 'puback', messageId: id, reasonCode: code, ...(reason !== undefined ? { properties: { reasonString: reason } } : {}) }, { protocolVersion: 5 });
    // A PUBACK with a long reason string is left to mqtt.js (its `packetreceive` still reaches the connection).
    const fits = bytes.length - 2 <= 64;
    return { bytes, taken: own(id) && fits ? { id, code } : undefined };
  });
const publish: fc.Arbitrary<Sent> = fc
  .record({ id: packetId, topic: fc.string({ minLength: 1, maxLength: 30 }), payload: fc.oneof(fc.uint8Array({ maxLength: 400, size: 'max' }), fc.integer({ min: 16_000, max: 40_000 }).map((n) => new Uint8Array(n).fill(0x40))) })
  .map(({ id, topic, payload }) => ({ bytes: mqttPacket.generate({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 1, messageId: id, retain: false, dup: false }) }));
const others: fc.Arbitrary<Sent> = fc.constantFrom<Sent>(
  { bytes: mqttPacket.generate({ cmd: 'pingresp' }) },
  { bytes: mqttPacket.generate({ cmd: 'suback', messageId: 9, granted: [1] }) },
  // A PUBACK too short to carry an id is not one the tap reads.
  { bytes: Buffer.from([0x40, 0x01, 0x00]) },
);
const sent = fc.array(fc.oneof(puback3, puback5, publish, others), { minLength: 1, maxLength: 40, size: 'max' });

/** Cuts `bytes` at the given offsets (sorted, deduplicated, inside the buffer). */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    if (p > from) out.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

describe('gateway PUBACK tap', () => {
  it('takes the own PUBACKs and passes every other byte to mqtt.js, however the socket cuts them (property test)', async () => {
    await fc.assert(
      fc.asyncProperty(sent, fc.array(fc.nat(), { maxLength: 30, size: 'max' }), async (packets, cuts) => {
        const all = Buffer.concat(packets.map((p) => p.bytes));
        const { taken, forwarded } = await run(cut(all, cuts), own);
        assert.deepEqual(taken, packets.flatMap((p) => (p.taken ? [p.taken] : [])));
        assert.deepEqual(forwarded, Buffer.concat(packets.filter((p) => !p.taken).map((p) => p.bytes)));
      }),
      { numRuns: 200 },
    );
  });

  it('passes what it cannot frame on to mqtt.js untouched, from there on, so mqtt.js reports the broken stream', async () => {
    const mine = mqttPacket.generate({ cmd: 'puback', messageId: 5 }, { protocolVersion: 4 });
    // A remaining length with a fifth continuation byte: longer than MQTT allows.
    const broken = Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]);
    const { taken, forwarded } = await run([mine, Buffer.concat([broken, mine])], own);
    assert.deepEqual(taken, [{ id: 5, code: 0 }]);
    assert.deepEqual(forwarded, Buffer.concat([broken, mine]));
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    const errors: Error[] = [];
    parser.on('error', (err) => errors.push(err));
    parser.parse(forwarded);
    assert.equal(errors.length, 1, 'mqtt-packet sees the stream the tap could not frame');
  });

  it('hands a packet cut off by the end of the stream to mqtt.js instead of holding it', async () => {
    const { taken, forwarded } = await run([Buffer.from([0x40, 0x02, 0x00])], own);
    assert.deepEqual(taken, []);
    assert.deepEqual(forwarded, Buffer.from([0x40, 0x02, 0x00]));
  });

  it('passes a chunk with nothing of its own as the very buffer the socket gave', () => {
    const dest = new Writable({ write: (_c, _e, done) => done() });
    const tap = new PubackTap(dest, () => false);
    const chunk = Buffer.concat([mqttPacket.generate({ cmd: 'pingresp' }), mqttPacket.generate({ cmd: 'puback', messageId: 40_000 }, { protocolVersion: 4 })]);
    const out = tap.split(chunk);
    assert.equal(out.length, 1);
    assert.equal(out[0], chunk);
  });
});
