import assert from 'node:assert/strict';
import { encodeSerialFrame, SerialDeframer, type SerialFrame } from '../../../lib/mesh/serial-framing';
import { failureSummary, runFuzz } from '../../support/fuzz/runner';
import { serialFramesTarget } from '../../support/fuzz/targets/serial-frames';

/** A seeded PRNG (mulberry32): the fuzz run is the same on every machine, so a failure reproduces from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STREAMS = 100_000;

interface Case {
  stream: Uint8Array;
  frames: Uint8Array[];
  /** Every original payload must come out in order (no mutation touched a frame). */
  exact: boolean;
}

function makeCase(rand: () => number): Case {
  const int = (n: number): number => Math.floor(rand() * n);
  const frames: Uint8Array[] = [];
  const wire: Uint8Array[] = [];
  const count = 1 + int(4);
  for (let i = 0; i < count; i++) {
    if (rand() < 0.5) wire.push(garbage(rand, int(24)));
    const payload = Uint8Array.from({ length: int(rand() < 0.1 ? 600 : 48) }, () => (rand() < 0.05 ? 0xa5 : int(256)));
    frames.push(payload);
    wire.push(encodeSerialFrame(1 + int(4), payload));
  }
  if (rand() < 0.5) wire.push(garbage(rand, int(24)));
  let stream = Uint8Array.from(Buffer.concat(wire));
  let exact = true;
  const mutations = rand() < 0.3 ? 0 : 1 + int(4);
  for (let m = 0; m < mutations; m++) {
    exact = false;
    const at = int(stream.length + 1);
    switch (int(6)) {
      case 0: // flip one bit
        if (stream.length > 0) stream[Math.min(at, stream.length - 1)] ^= 1 << int(8);
        break;
      case 1: // set a byte to a value the framing cares about
        if (stream.length > 0) stream[Math.min(at, stream.length - 1)] = [0xa5, 0x5a, 0x00, 0xff][int(4)];
        break;
      case 2: // insert line noise
        stream = Uint8Array.from(Buffer.concat([stream.subarray(0, at), garbage(rand, 1 + int(8)), stream.subarray(at)]));
        break;
      case 3: // drop bytes (a lost read)
        stream = Uint8Array.from(Buffer.concat([stream.subarray(0, at), stream.subarray(at + 1 + int(12))]));
        break;
      case 4: // repeat a stretch (a duplicated read)
        stream = Uint8Array.from(Buffer.concat([stream.subarray(0, at), stream.subarray(Math.max(0, at - 16), at), stream.subarray(at)]));
        break;
      default: // truncate (unplugged)
        stream = stream.subarray(0, at);
    }
  }
  return { stream, frames, exact };
}

function garbage(rand: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => (rand() < 0.15 ? 0xa5 : rand() < 0.15 ? 0x5a : Math.floor(rand() * 256)));
}

/** Feed in random read sizes; a final push after a long pause lets the stale rule flush a held partial. */
function deframe(d: SerialDeframer, stream: Uint8Array, rand: () => number): SerialFrame[] {
  const out: SerialFrame[] = [];
  let now = 0;
  for (let at = 0; at < stream.length; ) {
    const n = 1 + Math.floor(rand() * 64);
    out.push(...d.push(stream.subarray(at, at + n), now));
    at += n;
    now += 1;
  }
  out.push(...d.push(new Uint8Array(0), now + 10_000));
  return out;
}


describe('lib/mesh/serial-framing fuzz', () => {
  it(`deframes ${STREAMS} mutated streams without throwing or inventing a frame`, function () {
    this.timeout(60_000);
    const rand = prng(0x5e71a1);
    let recovered = 0;
    let exactStreams = 0;
    for (let i = 0; i < STREAMS; i++) {
      const c = makeCase(rand);
      const d = new SerialDeframer({ staleAfterMs: 1000 });
      let out: SerialFrame[];
      try {
        out = deframe(d, c.stream, rand);
      } catch (err) {
        assert.fail(`stream ${i} threw ${String(err)}`);
      }
      const original = c.frames.map((f) => Buffer.from(f).toString('hex'));
      const found = out.map((f) => Buffer.from(f.payload).toString('hex'));
      // A duplicated read may legitimately repeat a short frame, so damaged streams are checked for invention only.
      for (const f of found) assert.ok(original.includes(f), `stream ${i}: a frame came out that was never sent`);
      if (c.exact) {
        exactStreams++;
        assert.deepEqual(found, original, `stream ${i}: garbage between intact frames lost a frame`);
      }
      assert.ok(d.buffered <= 600 + 12 + 64, `stream ${i}: holds ${d.buffered} bytes`);
      recovered += out.length;
    }
    assert.ok(exactStreams > STREAMS / 5, 'the generator produced intact streams too');
    assert.ok(recovered > STREAMS, 'frames were recovered from damaged streams as well');
  });

  it('decodeSerialFrame throws only MeshDecodeError on 100000 mutated frames', function () {
    this.timeout(60_000);
    const report = runFuzz(serialFramesTarget, { count: 100_000, seed: 0xc0ffee });
    assert.equal(report.foreign + report.invariant, 0, failureSummary(report));
    for (const code of ['SERIAL_BAD_MARKER', 'SERIAL_BAD_HEADER_CRC', 'SERIAL_BAD_CRC', 'SERIAL_TRUNCATED', 'SERIAL_TRAILING_BYTES']) {
      assert.ok(code in report.codes, `the mutations reached ${code}`);
    }
  });
});
