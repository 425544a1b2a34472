import assert from 'node:assert/strict';
import { MeshDecodeError, MeshEncodeError } from '../../../lib/mesh/errors';
import {
  crc16,
  decodeSerialFrame,
  decodeSerialHello,
  encodeSerialFrame,
  encodeSerialHello,
  SERIAL_MAX_PAYLOAD,
  SERIAL_OVERHEAD_BYTES,
  SerialDeframer,
  type SerialDiscardEvent,
  SerialFrameType,
} from '../../../lib/mesh/serial-framing';

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const ascii = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));

/** Bit-by-bit CRC-16/IBM-3740, written independently of the table-driven one under test. */
function crc16Bitwise(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      const inBit = (byte >> bit) & 1;
      const top = (crc >> 15) & 1;
      crc = (crc << 1) & 0xffff;
      if (top ^ inBit) crc ^= 0x1021;
    }
  }
  return crc;
}

const cat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));
const payloads = (frames: { payload: Uint8Array }[]): string[] => frames.map((f) => toHex(f.payload));

// Golden vector 1 of the binary wire (mesh-reference-facts.md §2), 37 bytes.
const GOLDEN_V1 = hex('f5 00000000000000000000000000000000 0161 0162 0163 01 08 00 00 00 00 00 00 00 00 01 00 00 00');

describe('lib/mesh/serial-framing', () => {
  describe('crc16', () => {
    it('has the CRC-16/IBM-3740 check value 0x29B1 over "123456789"', () => {
      assert.equal(crc16(ascii('123456789')), 0x29b1);
    });

    it('is 0xFFFF (the init value) over nothing', () => {
      assert.equal(crc16(new Uint8Array(0)), 0xffff);
    });

    it('agrees with a bitwise implementation on every single byte and on longer inputs', () => {
      for (let b = 0; b < 256; b++) assert.equal(crc16(Uint8Array.of(b)), crc16Bitwise(Uint8Array.of(b)), `byte ${b}`);
      const long = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31 + 7) & 0xff);
      assert.equal(crc16(long), crc16Bitwise(long));
      assert.equal(crc16(long, 10, 20), crc16Bitwise(long.subarray(10, 20)));
    });
  });

  describe('encodeSerialFrame', () => {
    it('lays out a small DATA frame byte for byte', () => {
      const frame = encodeSerialFrame(SerialFrameType.DATA, ascii('hi'));
      assert.equal(
        toHex(frame),
        [
          'a55a', // start marker
          '01', // version
          '01', // type DATA
          '00000002', // payload length, u32 big-endian
          'c1a3', // CRC-16 of bytes 2..7 (01 01 00 00 00 02)
          '6869', // payload "hi"
          '6203', // CRC-16 of the payload
        ].join(''),
      );
      assert.equal(crc16(hex('010100000002')), 0xc1a3);
      assert.equal(crc16(ascii('hi')), 0x6203);
    });

    it('carries golden vector 1 in 49 bytes', () => {
      const frame = encodeSerialFrame(SerialFrameType.DATA, GOLDEN_V1);
      assert.equal(frame.length, GOLDEN_V1.length + SERIAL_OVERHEAD_BYTES);
      assert.equal(toHex(frame.subarray(0, 10)), 'a55a010100000025' + '9526');
      assert.equal((frame[8] << 8) | frame[9], crc16(frame, 2, 8));
      assert.deepEqual(frame.subarray(10, 47), GOLDEN_V1);
      assert.equal(toHex(frame.subarray(47)), '440c');
      assert.equal((frame[47] << 8) | frame[48], crc16(GOLDEN_V1));
    });

    it('encodes an empty payload (PING) with the CRC of nothing, FFFF', () => {
      assert.equal(toHex(encodeSerialFrame(SerialFrameType.PING, new Uint8Array(0))), 'a55a' + '01' + '03' + '00000000' + 'a562' + 'ffff');
    });

    it('refuses a type that is not a byte and a payload above the limit', () => {
      assert.throws(() => encodeSerialFrame(256, new Uint8Array(1)), (e: unknown) => e instanceof MeshEncodeError && e.code === 'SERIAL_BAD_TYPE');
      assert.throws(() => encodeSerialFrame(-1, new Uint8Array(1)), (e: unknown) => e instanceof MeshEncodeError && e.code === 'SERIAL_BAD_TYPE');
      assert.throws(
        () => encodeSerialFrame(1, new Uint8Array(11), 10),
        (e: unknown) => e instanceof MeshEncodeError && e.code === 'SERIAL_FRAME_TOO_LARGE',
      );
      assert.throws(
        () => encodeSerialFrame(1, new Uint8Array(SERIAL_MAX_PAYLOAD + 1)),
        (e: unknown) => e instanceof MeshEncodeError && e.code === 'SERIAL_FRAME_TOO_LARGE',
      );
      assert.equal(encodeSerialFrame(1, new Uint8Array(SERIAL_MAX_PAYLOAD)).length, SERIAL_MAX_PAYLOAD + SERIAL_OVERHEAD_BYTES);
    });
  });

  describe('decodeSerialFrame', () => {
    const good = encodeSerialFrame(SerialFrameType.DATA, GOLDEN_V1);
    const code = (bytes: Uint8Array, max?: number): string => {
      try {
        decodeSerialFrame(bytes, max);
      } catch (err) {
        assert.ok(err instanceof MeshDecodeError, `threw ${String(err)}`);
        return err.code;
      }
      return 'ok';
    };

    it('round-trips', () => {
      const back = decodeSerialFrame(good);
      assert.equal(back.type, SerialFrameType.DATA);
      assert.deepEqual(back.payload, GOLDEN_V1);
    });

    it('names each way a frame can be wrong', () => {
      assert.equal(code(good.subarray(0, 11)), 'SERIAL_TRUNCATED');
      assert.equal(code(good.subarray(0, good.length - 1)), 'SERIAL_TRUNCATED');
      const marker = good.slice();
      marker[1] = 0x5b;
      assert.equal(code(marker), 'SERIAL_BAD_MARKER');
      const header = good.slice();
      header[7] ^= 0x01;
      assert.equal(code(header), 'SERIAL_BAD_HEADER_CRC');
      const payload = good.slice();
      payload[20] ^= 0x80;
      assert.equal(code(payload), 'SERIAL_BAD_CRC');
      assert.equal(code(Uint8Array.from([...good, 0])), 'SERIAL_TRAILING_BYTES');
      assert.equal(code(good, 36), 'SERIAL_FRAME_TOO_LARGE');
      const v2 = good.slice();
      v2[2] = 2;
      v2[8] = crc16(v2, 2, 8) >> 8;
      v2[9] = crc16(v2, 2, 8) & 0xff;
      assert.equal(code(v2), 'SERIAL_BAD_VERSION');
      assert.throws(() => decodeSerialFrame('a55a' as unknown as Uint8Array), (e: unknown) => e instanceof MeshDecodeError && e.code === 'SERIAL_NOT_BYTES');
    });
  });

  describe('SerialDeframer', () => {
    const a = encodeSerialFrame(SerialFrameType.DATA, ascii('first frame'));
    const b = encodeSerialFrame(SerialFrameType.HELLO, ascii('{"wire_versions":[1]}'));
    const c = encodeSerialFrame(SerialFrameType.DATA, GOLDEN_V1);

    it('returns frames whole whatever the read boundaries', () => {
      const stream = cat(a, b, c);
      for (let step = 1; step <= stream.length; step++) {
        const d = new SerialDeframer();
        const out = [];
        for (let at = 0; at < stream.length; at += step) out.push(...d.push(stream.subarray(at, at + step)));
        assert.deepEqual(payloads(out), payloads([a, b, c].map((f) => decodeSerialFrame(f))), `step ${step}`);
        assert.equal(d.buffered, 0);
      }
    });

    it('skips garbage before, between and after frames, counting it', () => {
      const events: SerialDiscardEvent[] = [];
      const d = new SerialDeframer({ onDiscard: (e) => events.push(e) });
      const out = d.push(cat(ascii('boot: v1.2\r\n'), a, Uint8Array.of(0xa5, 0x00, 0x5a, 0xa5), b, ascii('xx')));
      assert.deepEqual(out.map((f) => f.type), [SerialFrameType.DATA, SerialFrameType.HELLO]);
      assert.equal(d.counters.discardedBytes, 12 + 4 + 2);
      assert.ok(events.every((e) => e.reason === 'garbage'));
    });

    it('keeps a lone trailing A5 in case the marker is split across reads', () => {
      const d = new SerialDeframer();
      assert.deepEqual(d.push(cat(ascii('zz'), a.subarray(0, 1))), []);
      assert.equal(d.buffered, 1);
      assert.equal(d.push(a.subarray(1)).length, 1);
    });

    it('resyncs after a corrupted header without waiting for the length it claims', () => {
      const broken = a.slice();
      broken[4] = 0x7f; // length now ~2 GB, header CRC no longer matches
      const d = new SerialDeframer();
      const out = d.push(cat(broken, b));
      assert.deepEqual(out.map((f) => f.type), [SerialFrameType.HELLO]);
      assert.equal(d.counters.headerCrcErrors, 1);
    });

    it('finds a whole frame that starts inside a frame whose payload CRC fails', () => {
      // A device rebooted after sending the start of `a`; its next frame `c` follows at once.
      const truncated = a.subarray(0, 14);
      const d = new SerialDeframer();
      const out = d.push(cat(truncated, c, b));
      assert.deepEqual(payloads(out), payloads([c, b].map((f) => decodeSerialFrame(f))));
      assert.equal(d.counters.payloadCrcErrors, 1);
    });

    it('gives up a stale partial frame and recovers the frame behind it', () => {
      const big = encodeSerialFrame(SerialFrameType.DATA, new Uint8Array(500).fill(7));
      const d = new SerialDeframer({ staleAfterMs: 1000 });
      // The first 20 bytes of `big`, then the device restarts and sends `c` whole: too short to fail `big`'s CRC.
      assert.deepEqual(d.push(cat(big.subarray(0, 20), c), 0), []);
      assert.deepEqual(d.push(new Uint8Array(0), 500), [], 'not stale yet');
      const out = d.push(b, 2000);
      assert.deepEqual(payloads(out), payloads([c, b].map((f) => decodeSerialFrame(f))));
      assert.equal(d.counters.stale, 1);
    });

    it('treats a declared length above its limit as corruption', () => {
      const d = new SerialDeframer({ maxPayload: 8 });
      const out = d.push(cat(a, encodeSerialFrame(SerialFrameType.PING, ascii('ok'))));
      assert.deepEqual(out.map((f) => f.type), [SerialFrameType.PING]);
      assert.equal(d.counters.oversize, 1);
    });

    it('skips a frame of an unknown version by its length and stays in step', () => {
      const future = encodeSerialFrame(SerialFrameType.DATA, cat(Uint8Array.of(0xa5, 0x5a), ascii('v2 body')));
      future[2] = 2;
      const crc = crc16(future, 2, 8);
      future[8] = crc >> 8;
      future[9] = crc & 0xff;
      const d = new SerialDeframer();
      const stream = cat(future, b);
      const out = [];
      for (const byte of stream) out.push(...d.push(Uint8Array.of(byte)));
      assert.deepEqual(out.map((f) => f.type), [SerialFrameType.HELLO]);
      assert.equal(d.counters.unknownVersion, 1);
    });

    it('hands out copies, not views of its buffer', () => {
      const d = new SerialDeframer();
      const [first] = d.push(a);
      d.push(b);
      assert.equal(Buffer.from(first.payload).toString('latin1'), 'first frame');
    });

    it('carries a 1 MiB payload and refuses non-byte input with its own error', () => {
      const huge = new Uint8Array(SERIAL_MAX_PAYLOAD);
      for (let i = 0; i < huge.length; i += 4096) huge[i] = 0xa5;
      const d = new SerialDeframer();
      const frame = encodeSerialFrame(SerialFrameType.DATA, huge);
      const out = [];
      for (let at = 0; at < frame.length; at += 100_000) out.push(...d.push(frame.subarray(at, at + 100_000)));
      assert.equal(out.length, 1);
      assert.deepEqual(out[0].payload, huge);
      assert.throws(() => d.push([1, 2] as unknown as Uint8Array), (e: unknown) => e instanceof MeshDecodeError && e.code === 'SERIAL_NOT_BYTES');
    });

    it('forgets a partial frame on reset', () => {
      const d = new SerialDeframer();
      d.push(a.subarray(0, 15));
      d.reset();
      assert.equal(d.buffered, 0);
      assert.equal(d.push(b).length, 1);
    });
  });

  describe('the examples of docs/serial-framing.md', () => {
    it('encodes the PONG and the gateway HELLO as printed', () => {
      assert.equal(toHex(encodeSerialFrame(SerialFrameType.PONG, hex('0102030405060708'))), 'a55a01040000000843be01020304050607084792');
      const hello = encodeSerialHello({ role: 'gateway', wireVersions: [1], maxFrame: 1_048_576 });
      assert.equal(
        toHex(encodeSerialFrame(SerialFrameType.HELLO, hello)),
        'a55a01020000003a982a' + Buffer.from('{"wire_versions":[1],"max_frame":1048576,"role":"gateway"}').toString('hex') + '614d',
      );
    });

    it('recovers "hi" from the resync example, by the next byte or by the stale rule', () => {
      const stream = cat(ascii('\r\nboot\r\n'), hex('a55a010100000010f3d0414243'), hex('a55a010100000002c1a368696203'));
      const byStale = new SerialDeframer();
      assert.deepEqual(byStale.push(stream, 0), []);
      assert.deepEqual(payloads(byStale.push(new Uint8Array(0), 2000)), [toHex(ascii('hi'))]);
      const byByte = new SerialDeframer();
      assert.deepEqual(payloads(byByte.push(cat(stream, Uint8Array.of(0)))), [toHex(ascii('hi'))]);
      assert.equal(byByte.counters.payloadCrcErrors, 1);
    });
  });

  describe('HELLO payload', () => {
    it('round-trips and ignores unknown keys', () => {
      const payload = encodeSerialHello({ wireVersions: [1, 0], address: 'off1abc', role: 'gateway', maxFrame: 4096 });
      assert.equal(Buffer.from(payload).toString(), '{"wire_versions":[1,0],"address":"off1abc","max_frame":4096,"role":"gateway"}');
      const back = decodeSerialHello(Uint8Array.from(Buffer.from('{"wire_versions":[1,1,0],"address":"off1abc","x":{"y":1}}')));
      assert.deepEqual(back, { wireVersions: [0, 1], address: 'off1abc' });
      assert.deepEqual(decodeSerialHello(Uint8Array.from(Buffer.from('{}'))), { wireVersions: [] });
    });

    it('refuses what is not a HELLO with SERIAL_BAD_HELLO', () => {
      for (const text of ['', 'not json', '[1]', 'null', '{"wire_versions":"1"}', '{"wire_versions":[256]}', '{"address":5}', '{"max_frame":-1}']) {
        assert.throws(
          () => decodeSerialHello(Uint8Array.from(Buffer.from(text))),
          (e: unknown) => e instanceof MeshDecodeError && e.code === 'SERIAL_BAD_HELLO',
          text,
        );
      }
      assert.throws(() => decodeSerialHello(Uint8Array.of(0xff, 0xfe)), (e: unknown) => e instanceof MeshDecodeError && e.code === 'SERIAL_BAD_HELLO');
    });
  });
});
