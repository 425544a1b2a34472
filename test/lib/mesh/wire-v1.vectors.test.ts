import { strict as assert } from 'node:assert';
import { decodeFrame, encodeFrame } from '../../../lib/mesh/frame';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import type { MeshMessage } from '../../../lib/mesh/message';
import { fromPlain, toPlain } from '../../../lib/mesh/plain';
import { decodeWireV1, WIRE_V1_MAGIC } from '../../../lib/mesh/wire-v1';
import { loadReferenceVectors } from '../../support/reference-vectors';
import { bytesFromHex, hex } from './fixtures';

interface VectorMessage {
  id: string;
  sender: string;
  recipient: string;
  app_id: string;
  priority: string;
  ttl: number;
  hop_count: number;
  timestamp_ms: string;
  lamport_clock: string;
  content_type: string;
  content: string;
  binary_content_hex: string | null;
  media_metadata_json: string | null;
  metadata: Record<string, string>;
  requires_ack: boolean;
  reply_to_msg: string | null;
  forwarded_from_json: string | null;
  reply_context_json: string | null;
}
interface VectorFile {
  magic: string;
  frames: Array<{ name: string; message: VectorMessage; hex: string; encoder_specific?: boolean }>;
  decode_only: Array<{ name: string; hex: string; expect: Record<string, unknown> }>;
  rejects: Array<{ name: string; hex: string; reason: string }>;
}

/** The vector's message through the plain-object path, the one integrators use (so the blobs are read as JSON). */
function messageOf(v: VectorMessage): MeshMessage {
  const plain: Record<string, unknown> = {
    id: v.id,
    sender: v.sender,
    recipient: v.recipient,
    app_id: v.app_id,
    priority: v.priority,
    ttl: v.ttl,
    hop_count: v.hop_count,
    timestamp: v.timestamp_ms,
    lamport_clock: v.lamport_clock,
    content_type: v.content_type,
    content: v.content,
    metadata: v.metadata,
    requires_ack: v.requires_ack,
    reply_to_msg: v.reply_to_msg,
  };
  if (v.binary_content_hex !== null) plain.binary_content = Buffer.from(v.binary_content_hex, 'hex');
  if (v.media_metadata_json !== null) plain.media_metadata = JSON.parse(v.media_metadata_json);
  if (v.forwarded_from_json !== null) plain.forwarded_from = JSON.parse(v.forwarded_from_json);
  if (v.reply_context_json !== null) plain.reply_context = JSON.parse(v.reply_context_json);
  return fromPlain(plain);
}

/** What a vector's `reason` means in this decoder's codes: the refusal must be the named one, not any throw. */
const REJECT_CODES: Record<string, string> = {
  'wrong magic byte': 'NOT_WIRE_V1',
  'no magic byte': 'NOT_WIRE_V1',
  'identifier too long': 'IDENTIFIER_TOO_LONG',
  truncated: 'TRUNCATED',
};

// Timestamps reach i64::MIN and clocks u64::MAX/2: read as text, since JSON.parse would round them.
const vectors = loadReferenceVectors<VectorFile>('wire-v1.vectors.json', (text) =>
  text.replace(/"(timestamp_ms|lamport_clock)":\s*(-?\d+)/g, '"$1": "$2"'),
);

describe('reference vectors: wire-v1.vectors.json', () => {
  if (!vectors) return;
  it('has the case count it was read with (18 frames, 6 decode-only, 5 rejects) and our magic', () => {
    assert.equal(vectors.frames.length, 18);
    assert.equal(vectors.decode_only.length, 6);
    assert.equal(vectors.rejects.length, 5);
    assert.equal(parseInt(vectors.magic, 16), WIRE_V1_MAGIC);
  });

  for (const c of vectors.frames) {
    it(`encode: ${c.name}${c.encoder_specific ? ' (encoder-specific: our bytes must decode to the same message)' : ''}`, () => {
      const ours = encodeFrame(messageOf(c.message), 'binary');
      if (c.encoder_specific) assert.deepEqual(toPlain(decodeFrame(ours)), toPlain(messageOf(c.message)));
      else assert.equal(hex(ours), c.hex);
    });
    it(`decode: ${c.name}`, () => {
      assert.deepEqual(toPlain(decodeFrame(bytesFromHex(c.hex))), toPlain(messageOf(c.message)));
    });
  }

  for (const c of vectors.decode_only) {
    it(`decode only: ${c.name}`, () => {
      const got = toPlain(decodeFrame(bytesFromHex(c.hex))) as unknown as Record<string, unknown>;
      assert.ok(Object.keys(c.expect).length > 0);
      for (const [key, want] of Object.entries(c.expect)) assert.equal(String(got[key]), String(want), key);
    });
  }

  for (const c of vectors.rejects) {
    it(`rejects: ${c.name} (${c.reason})`, () => {
      const code = REJECT_CODES[c.reason];
      assert.ok(code, `a reason this test knows: ${c.reason}`);
      assert.throws(
        () => decodeWireV1(bytesFromHex(c.hex)),
        (err: unknown) => err instanceof MeshDecodeError && err.code === code,
      );
    });
  }
});
