import { strict as assert } from 'node:assert';
import { fromHex } from '../../../lib/bytes';
import {
  decodeFragment,
  encodeFragments,
  FRAGMENT_HEADER_FIXED_BYTES,
  FRAGMENT_MAGIC,
  FRAGMENT_VERSION,
  FragmentReassembler,
  fragmentPayloadSize,
  BLE_MAX_FRAGMENT_SIZE,
} from '../../../lib/mesh/ble-fragment';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { decodeFrame } from '../../../lib/mesh/frame';
import { loadReferenceVectors } from '../../support/reference-vectors';

const hex = (h: string): Uint8Array => fromHex(h) as Uint8Array;

interface VectorFile {
  format: { magic: string; version: number; header_fixed_bytes: number };
  sizing: { max_reasonable_payload: number; worked_example: { mtu: number; id_len: number; max_fragment_payload: number } };
  reassembly: Array<{ name: string; frames: string[]; expect: string; payload_utf8: string; message_content: string }>;
  refusals: Array<{ name: string; frames: string[]; reason: string }>;
}

/** The vector's reason in this decoder's codes: a refusal must be the named one, not any throw. */
const REFUSAL_CODES: Record<string, string> = {
  magic: 'BAD_FRAGMENT_MAGIC',
  version: 'BAD_FRAGMENT_VERSION',
  'out of range': 'BAD_FRAGMENT_INDEX|BAD_FRAGMENT_TOTAL',
  maximum: 'FRAGMENT_LIMIT',
  mismatch: 'FRAGMENT_TOTAL_MISMATCH',
  'too short': 'FRAGMENT_TOO_SHORT',
  truncated: 'FRAGMENT_TRUNCATED',
};

describe('reference vectors: ble-framing-v1.vectors.json', () => {
  const file = loadReferenceVectors<VectorFile>('ble-framing-v1.vectors.json');
  if (!file) return;
  it('has the 4 reassembly and 9 refusal cases it was read with, and our header constants', () => {
    assert.deepEqual([file.reassembly.length, file.refusals.length], [4, 9]);
    assert.deepEqual(hex(file.format.magic), Uint8Array.from(FRAGMENT_MAGIC));
    assert.equal(file.format.version, FRAGMENT_VERSION);
    assert.equal(file.format.header_fixed_bytes, FRAGMENT_HEADER_FIXED_BYTES);
    assert.equal(file.sizing.max_reasonable_payload, BLE_MAX_FRAGMENT_SIZE);
  });
  it('sizes the worked example as the file does', () => {
    const w = file.sizing.worked_example;
    assert.equal(fragmentPayloadSize('x'.repeat(w.id_len), w.mtu), w.max_fragment_payload);
  });
  for (const c of file.reassembly) {
    it(`reassembles: ${c.name}`, () => {
      const r = new FragmentReassembler({ now: () => 0 });
      const results = c.frames.map((f) => r.push(hex(f)));
      const done = results.filter((x) => x.status === 'complete');
      assert.equal(done.length, 1, 'exactly one completion');
      assert.equal(results.at(-1)!.status, 'complete', 'on the last frame');
      const frame = done[0]!.status === 'complete' ? done[0]!.frame : new Uint8Array();
      assert.equal(Buffer.from(frame).toString('utf8'), c.payload_utf8);
      assert.equal(decodeFrame(frame).content, c.message_content);
      assert.equal(r.size, 0, 'nothing left open');
    });
  }
  it('encodes the three-fragment payload into the three vector frames', () => {
    const c = file.reassembly[1]!;
    const first = decodeFragment(hex(c.frames[0]!));
    const ours = encodeFragments(Buffer.from(c.payload_utf8, 'utf8'), first.messageId, FRAGMENT_HEADER_FIXED_BYTES + first.messageId.length + first.data.length);
    assert.deepEqual(ours.map((f) => Buffer.from(f).toString('hex')), c.frames);
  });
  for (const c of file.refusals) {
    it(`refuses: ${c.name} (${c.reason})`, () => {
      const codes = REFUSAL_CODES[c.reason]!.split('|');
      const r = new FragmentReassembler({ now: () => 0 });
      for (const f of c.frames.slice(0, -1)) assert.equal(r.push(hex(f)).status, 'incomplete');
      assert.throws(
        () => r.push(hex(c.frames.at(-1)!)),
        (err: unknown) => err instanceof MeshDecodeError && codes.includes(err.code),
      );
      assert.equal(r.counters.completed, 0);
    });
  }
});
