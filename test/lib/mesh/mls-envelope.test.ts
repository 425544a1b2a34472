import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { fromHex, toHex } from '../../../lib/bytes';
import { sessionSlotId } from '../../../lib/mesh/address';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { parseKeyPackage } from '../../../lib/mesh/key-package';
import { createMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import {
  decodeCompactMlsEnvelope,
  encodeCompactMlsEnvelope,
  MLS_ENC_PREFIX,
  MLS_ENVELOPE_MAX_STRING_BYTES,
  mlsEnvelopeOf,
  parseMlsEnvelope,
  type MlsEnvelope,
  type MlsMessageType,
} from '../../../lib/mesh/mls-envelope';
import { loadReferenceVectors } from '../../support/reference-vectors';

const hex = (h: string): Uint8Array => fromHex(h) as Uint8Array;

interface VectorFile {
  max_string_field_len: number;
  envelopes: Array<{
    name: string;
    envelope: { group_id: string; sender_id: string; message_type: string; epoch: string; timestamp_ms: string; ciphertext_hex: string };
    hex: string;
  }>;
  json_disambiguation: { prefix_utf8: string; min_as_le_u32: number; exceeds_max_string_field_len: boolean };
}

const plain = (e: MlsEnvelope) => ({ ...e, epoch: String(e.epoch), timestamp_ms: String(e.timestamp_ms), ciphertext: toHex(e.ciphertext) });

// u64::MAX epochs and stamps: read as text, JSON.parse would round them.
const vectors = loadReferenceVectors<VectorFile>('mls-envelope-v1.vectors.json', (text) => text.replace(/"(epoch|timestamp_ms)":\s*(\d+)/g, '"$1": "$2"'));

describe('reference vectors: mls-envelope-v1.vectors.json', () => {
  if (!vectors) return;
  it('has the 6 envelopes it was read with, and our string cap', () => {
    assert.equal(vectors.envelopes.length, 6);
    assert.equal(vectors.max_string_field_len, MLS_ENVELOPE_MAX_STRING_BYTES);
  });
  for (const c of vectors.envelopes) {
    const envelope: MlsEnvelope = {
      group_id: c.envelope.group_id,
      sender_id: c.envelope.sender_id,
      message_type: c.envelope.message_type as MlsMessageType,
      epoch: BigInt(c.envelope.epoch),
      timestamp_ms: BigInt(c.envelope.timestamp_ms),
      ciphertext: hex(c.envelope.ciphertext_hex),
    };
    it(`encode: ${c.name}`, () => assert.equal(toHex(encodeCompactMlsEnvelope(envelope)), c.hex));
    it(`decode: ${c.name}`, () => assert.deepEqual(plain(decodeCompactMlsEnvelope(hex(c.hex))), plain(envelope)));
  }
  it('json disambiguation: a body opening with {" is refused by the compact reader at the length cap', () => {
    const d = vectors.json_disambiguation;
    const opening = Buffer.concat([Buffer.from(d.prefix_utf8, 'utf8'), Buffer.alloc(2)]);
    assert.equal(opening.readUInt32LE(0), d.min_as_le_u32);
    assert.equal(d.min_as_le_u32 > MLS_ENVELOPE_MAX_STRING_BYTES, d.exceeds_max_string_field_len);
    assert.throws(() => decodeCompactMlsEnvelope(Buffer.from('{"group_id":"g"}')), (e: unknown) => e instanceof MeshDecodeError && /cap/.test(e.message));
  });
});

describe('parseMlsEnvelope: the three inbound forms', () => {
  const alice = 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn';
  const bob = 'off1qyulwy7s5ezz20cy222zrw04rwds39uapqv9j8r0';
  const envelope: MlsEnvelope = {
    group_id: sessionSlotId(alice, bob),
    sender_id: alice,
    message_type: 'commit',
    epoch: 7n,
    timestamp_ms: 1700000000123n,
    ciphertext: Uint8Array.from([1, 2, 250]),
  };
  const json = JSON.stringify({ group_id: envelope.group_id, message_type: 'Commit', epoch: 7, ciphertext: [1, 2, 250], sender_id: alice, timestamp_ms: 1700000000123 });

  it('legacy JSON, the compact form and base64-wrapped JSON all read to the same parts, each named', () => {
    const forms = [
      ['json', json],
      ['compact', Buffer.from(encodeCompactMlsEnvelope(envelope)).toString('base64')],
      ['base64-json', Buffer.from(json).toString('base64')],
    ] as const;
    for (const [form, body] of forms) {
      const got = parseMlsEnvelope(body);
      assert.equal(got.form, form);
      assert.deepEqual(plain(got.envelope), plain(envelope), form);
    }
  });

  it('mlsEnvelopeOf reads a message\'s content after the prefix and ignores other content', () => {
    const m = (content: string) => createMessage({ id: MessageId.random(), sender: alice, recipient: bob, app_id: 't', priority: 'low', ttl: 8, hop_count: 0, timestamp: 1n, content });
    assert.equal(mlsEnvelopeOf(m('hello')), undefined);
    assert.equal(mlsEnvelopeOf(m(MLS_ENC_PREFIX + json))?.form, 'json');
  });

  it('ignores unknown JSON fields (a later release) but refuses a repeated, missing or mistyped one', () => {
    assert.equal(parseMlsEnvelope(json.replace('{', '{"later":1,')).envelope.epoch, 7n);
    const refused = [
      json.replace('"epoch":7', '"epoch":7,"epoch":8'),
      json.replace('"epoch":7,', ''),
      json.replace('"Commit"', '"commit"'),
      json.replace('[1,2,250]', '[1,2,256]'),
      json.replace('"epoch":7', '"epoch":-1'),
      json.replace(`"group_id":"${envelope.group_id}"`, '"group_id":""'),
    ];
    for (const body of refused) assert.throws(() => parseMlsEnvelope(body), MeshDecodeError, body);
  });

  it('refuses hostile compact bytes before allocating: every truncation, an unknown type, a lying length, bad UTF-8', () => {
    const good = encodeCompactMlsEnvelope(envelope);
    for (let n = 0; n < good.length; n++) {
      assert.throws(() => decodeCompactMlsEnvelope(good.subarray(0, n)), (e: unknown) => e instanceof MeshDecodeError && e.code === 'BAD_MLS_ENVELOPE', `cut at ${n}`);
    }
    const typed = Uint8Array.from(good);
    typed[4 + Buffer.byteLength(envelope.group_id) + 4 + alice.length] = 4;
    assert.throws(() => decodeCompactMlsEnvelope(typed), /message_type 4/);
    const lying = Uint8Array.from(good);
    new DataView(lying.buffer).setUint32(lying.length - 7, 0xffff_ffff, true);
    assert.throws(() => decodeCompactMlsEnvelope(lying), /ends inside ciphertext/);
    const badUtf8 = Uint8Array.from([1, 0, 0, 0, 0xff]);
    assert.throws(() => decodeCompactMlsEnvelope(badUtf8), /not UTF-8/);
  });

  it('refuses a body that is neither JSON nor canonical base64, and base64 that is neither form', () => {
    for (const body of ['', 'not base64!', 'QUJD=', Buffer.from([0, 0, 0, 0]).toString('base64')]) {
      assert.throws(() => parseMlsEnvelope(body), (e: unknown) => e instanceof MeshDecodeError && e.code === 'BAD_MLS_ENVELOPE', JSON.stringify(body));
    }
  });
});

describe('the envelope and key package readers under hostile input', () => {
  const valid = encodeCompactMlsEnvelope({ group_id: 'g:h', sender_id: 's', message_type: 'proposal', epoch: 9n, timestamp_ms: 3n, ciphertext: Uint8Array.from([1, 2, 3, 4]) });
  const ownOnly = (fn: () => unknown): void => {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof MeshDecodeError)) throw err;
    }
  };

  it('mutated compact envelopes: only MeshDecodeError escapes, and what is accepted re-encodes to the same parts', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(valid.length + 8), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }), fc.nat(valid.length + 8), (edits, cut) => {
        const bytes = Uint8Array.from(valid.subarray(0, cut));
        for (const [at, v] of edits) if (at < bytes.length) bytes[at] = v;
        let got: MlsEnvelope | undefined;
        ownOnly(() => (got = decodeCompactMlsEnvelope(bytes)));
        if (got) assert.deepEqual(plain(decodeCompactMlsEnvelope(encodeCompactMlsEnvelope(got))), plain(got));
      }),
      { numRuns: 2000, seed: 27 },
    );
  });

  it('arbitrary text after __MLS_ENC__ and after __MLS_KEY_PKG__: only MeshDecodeError escapes', () => {
    const json = fc.json({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), json, json.map((t) => Buffer.from(t).toString('base64'))), (text) => {
        ownOnly(() => parseMlsEnvelope(text));
        ownOnly(() => parseKeyPackage(text));
      }),
      { numRuns: 3000, seed: 27 },
    );
  });
});
