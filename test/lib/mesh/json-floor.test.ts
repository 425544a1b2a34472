import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { decodeJsonFloor, encodeJsonFloor, jsonFloorText } from '../../../lib/mesh/json-floor';
import { createMessage, LAMPORT_CLOCK_MAX } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { baseMessage, expectCode, fullMessage } from './fixtures';

const MINIMAL =
  '{"id":"00000000-0000-0000-0000-000000000000","sender":"a","recipient":"b","app_id":"c","priority":"medium","ttl":8,' +
  '"hop_count":0,"timestamp":0,"lamport_clock":0,"content_type":"text","content":"","metadata":{},"requires_ack":true,"reply_to_msg":null}';

function decode(text: string) {
  return decodeJsonFloor(Buffer.from(text, 'utf8'));
}

/** The minimal document with some keys replaced (value `undefined` removes the key). */
function variant(changes: Record<string, unknown>): string {
  const doc = JSON.parse(MINIMAL) as Record<string, unknown>;
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) delete doc[k];
    else doc[k] = v;
  }
  return JSON.stringify(doc);
}

/** Splices raw JSON text for one key (for values JSON.stringify cannot produce: big integers, floats). */
function withRaw(key: string, raw: string): string {
  return MINIMAL.replace(new RegExp(`"${key}":[^,}]*`), `"${key}":${raw}`);
}

describe('lib/mesh/json-floor', () => {
  describe('rendering', () => {
    it('renders the minimal message exactly as the reference (key order, reply_to_msg null, no optionals)', () => {
      const m = createMessage({
        id: MessageId.fromBytes(new Uint8Array(16)),
        sender: 'a',
        recipient: 'b',
        app_id: 'c',
        priority: 'medium',
        ttl: 8,
        hop_count: 0,
        timestamp: 0n,
        content: '',
      });
      assert.equal(jsonFloorText(m), MINIMAL);
    });

    it('renders every field in declaration order with optionals at their places', () => {
      const text = jsonFloorText(fullMessage());
      const keys = [...text.matchAll(/"([a-z_]+)":/g)].map((x) => x[1]).filter((k) => ['id', 'sender', 'recipient', 'app_id', 'priority', 'ttl', 'hop_count', 'timestamp', 'lamport_clock', 'content_type', 'content', 'binary_content', 'media_metadata', 'metadata', 'requires_ack', 'reply_to_msg', 'forwarded_from', 'reply_context'].includes(k));
      const top = keys.filter((k, i) => keys.indexOf(k) === i);
      assert.deepEqual(top, ['id', 'sender', 'recipient', 'app_id', 'priority', 'ttl', 'hop_count', 'timestamp', 'lamport_clock', 'content_type', 'content', 'binary_content', 'media_metadata', 'metadata', 'requires_ack', 'reply_to_msg', 'forwarded_from', 'reply_context']);
      assert.match(text, /"binary_content":\[0,1,2,127,128,255\]/);
      assert.match(text, /"media_metadata":\{"mime_type":"image\/jpeg","file_name":"cat.jpg","file_size":123456,"duration_ms":0,"width":640,"height":480,"thumbnail_base64":"AAAA","media_id":"m-1","download_url":"https:\/\/media.example\/1","ciphertext_hash":"abc","sticker_kind":"none"\}/);
      assert.match(text, /"reply_to_msg":"00112233-4455-6677-8899-aabbccddeeff"/);
      assert.match(text, /"forwarded_from":\{"original_sender":"carol","original_message_id":"a1a2a3a4-b1b2-c1c2-d1d2-d3d4d5d6d7d8","original_timestamp":42,"forward_count":3\}/);
      assert.match(text, /"reply_context":\{"sender":"dave","text":"earlier","timestamp":7,"reply_media_label":"Photo","reply_content_type":"image"\}\}$/);
    });

    it('puts extra fields before the closing brace, the floor otherwise unchanged', () => {
      const m = fullMessage();
      const text = jsonFloorText(m, ',"rx_radio":"sim0","rssi":-60');
      assert.equal(text, `${jsonFloorText(m).slice(0, -1)},"rx_radio":"sim0","rssi":-60}`);
      assert.deepEqual(Object.keys(JSON.parse(text) as object).slice(-2), ['rx_radio', 'rssi']);
    });

    it('writes content types snake_case and priorities lowercase', () => {
      const text = jsonFloorText(baseMessage({ content_type: 'voice_note', priority: 'high' }));
      assert.match(text, /"priority":"high"/);
      assert.match(text, /"content_type":"voice_note"/);
    });

    it('escapes strings as serde_json does: short escapes, lowercase \\u00xx, DEL and non-ASCII raw', () => {
      const text = jsonFloorText(baseMessage({ content: '"\\\b\f\n\r\t\u0001\u001f\u007f/é\u2028😀' }));
      assert.ok(text.includes('"content":"\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\u007f/é\u2028😀"'), text);
    });

    it('removes encryption_key and iv from media metadata', () => {
      const m = baseMessage({ media_metadata: { mime_type: 'a/b', file_name: 'f', file_size: 1n, encryption_key: 'K', iv: 'V', ciphertext_hash: 'h' } });
      const text = jsonFloorText(m);
      assert.ok(!text.includes('encryption_key') && !text.includes('"iv"'), text);
      assert.match(text, /"ciphertext_hash":"h"/);
    });

    it('writes metadata keys sorted by UTF-8 bytes, reproducibly', () => {
      const text = jsonFloorText(baseMessage({ metadata: new Map([['\u{1F600}', '1'], ['\uFF21', '2'], ['b', '3']]) }));
      assert.ok(text.includes('"metadata":{"b":"3","\uFF21":"2","\u{1F600}":"1"}'), text);
    });

    it('round-trips a full message', () => {
      const m = fullMessage();
      assert.deepEqual(decodeJsonFloor(encodeJsonFloor(m)), m);
    });
  });

  describe('integers are lossless', () => {
    it('lamport 18446744073709551615 decodes clamped to 9223372036854775807 exactly', () => {
      assert.equal(decode(withRaw('lamport_clock', '18446744073709551615')).lamport_clock, 9223372036854775807n);
    });

    it('2^53 + 1 survives a round trip', () => {
      const m = decode(withRaw('lamport_clock', '9007199254740993'));
      assert.equal(m.lamport_clock, 9007199254740993n);
      assert.match(jsonFloorText(m), /"lamport_clock":9007199254740993,/);
      const t = decode(withRaw('timestamp', '-9007199254740993'));
      assert.equal(t.timestamp, -9007199254740993n);
    });

    it('2^63 (a saturated tick) is accepted and clamped', () => {
      assert.equal(decode(withRaw('lamport_clock', '9223372036854775808')).lamport_clock, LAMPORT_CLOCK_MAX);
    });

    it('lamport above u64::MAX, negative, or a float is an error', () => {
      expectCode(() => decode(withRaw('lamport_clock', '18446744073709551616')), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(withRaw('lamport_clock', '-1')), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(withRaw('lamport_clock', '1.0')), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => decode(withRaw('lamport_clock', '1e3')), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('timestamp spans i64 and no further; -0 is a float', () => {
      assert.equal(decode(withRaw('timestamp', '-9223372036854775808')).timestamp, -9223372036854775808n);
      expectCode(() => decode(withRaw('timestamp', '9223372036854775808')), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(withRaw('timestamp', '-0')), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('ttl and hop_count are 0..255 integers; ttl 0 decodes', () => {
      assert.equal(decode(withRaw('ttl', '0')).ttl, 0);
      assert.equal(decode(withRaw('hop_count', '255')).hop_count, 255);
      expectCode(() => decode(withRaw('ttl', '256')), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(withRaw('hop_count', '-1')), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(withRaw('ttl', '8.0')), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => decode(withRaw('ttl', '"8"')), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => decode(withRaw('ttl', '99999999999999999999')), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
    });
  });

  describe('required fields and defaults', () => {
    for (const key of ['id', 'sender', 'recipient', 'app_id', 'priority', 'ttl', 'hop_count', 'timestamp', 'content']) {
      it(`a missing ${key} rejects the message`, () => {
        expectCode(() => decode(variant({ [key]: undefined })), MeshDecodeError, 'MISSING_FIELD');
      });
    }

    it('absent lamport_clock, content_type, metadata, requires_ack and reply_to_msg take their defaults', () => {
      const m = decode(variant({ lamport_clock: undefined, content_type: undefined, metadata: undefined, requires_ack: undefined, reply_to_msg: undefined }));
      assert.equal(m.lamport_clock, 0n);
      assert.equal(m.content_type, 'text');
      assert.equal(m.metadata.size, 0);
      assert.equal(m.requires_ack, true);
      assert.equal(m.reply_to_msg, undefined);
    });

    for (const key of ['lamport_clock', 'content_type', 'metadata', 'requires_ack']) {
      it(`null for the defaulted non-optional ${key} is an error`, () => {
        expectCode(() => decode(variant({ [key]: null })), MeshDecodeError, 'BAD_FIELD_TYPE');
      });
    }

    for (const key of ['id', 'sender', 'priority', 'ttl', 'timestamp', 'content']) {
      it(`null for the required ${key} is an error`, () => {
        expectCode(() => decode(variant({ [key]: null })), MeshDecodeError, 'BAD_FIELD_TYPE');
      });
    }

    for (const key of ['binary_content', 'media_metadata', 'reply_to_msg', 'forwarded_from', 'reply_context']) {
      it(`null for the optional ${key} means absent`, () => {
        const m = decode(variant({ [key]: null }));
        assert.ok(!(key in m), key);
      });
    }
  });

  describe('field rules', () => {
    it('accepts every UUID spelling for id and reply_to_msg, and renders lowercase hyphenated', () => {
      for (const spelling of ['67E55044-10B1-426F-9247-BB680E5FE0C8', '67e5504410b1426f9247bb680e5fe0c8', '{67e55044-10b1-426f-9247-bb680e5fe0c8}', 'urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8']) {
        const m = decode(variant({ id: spelling, reply_to_msg: spelling }));
        assert.equal(m.id.toString(), '67e55044-10b1-426f-9247-bb680e5fe0c8');
        assert.equal(m.reply_to_msg?.toString(), '67e55044-10b1-426f-9247-bb680e5fe0c8');
      }
    });

    it('a bad UUID or a non-string id is rejected', () => {
      expectCode(() => decode(variant({ id: '67e55044-10b1-426f-9247-bb680e5fe0c' })), MeshDecodeError, 'BAD_UUID');
      expectCode(() => decode(variant({ reply_to_msg: 'nope' })), MeshDecodeError, 'BAD_UUID');
      expectCode(() => decode(variant({ id: [1, 2] })), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('priority: the lowercase names and the capitalized aliases; nothing else', () => {
      assert.equal(decode(variant({ priority: 'Critical' })).priority, 'critical');
      assert.equal(decode(variant({ priority: 'low' })).priority, 'low');
      expectCode(() => decode(variant({ priority: 'HIGH' })), MeshDecodeError, 'UNKNOWN_PRIORITY');
      expectCode(() => decode(variant({ priority: 'urgent' })), MeshDecodeError, 'UNKNOWN_PRIORITY');
      expectCode(() => decode(variant({ priority: 2 })), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it("priority: serde's externally tagged unit form {\"high\":null} is accepted", () => {
      assert.equal(decode(variant({ priority: { high: null } })).priority, 'high');
      expectCode(() => decode(variant({ priority: { high: 1 } })), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => decode(variant({ priority: { high: null, low: null } })), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('an unknown content type string degrades to file; a non-string is an error', () => {
      assert.equal(decode(variant({ content_type: 'hologram' })).content_type, 'file');
      assert.equal(decode(variant({ content_type: 'file_chunk' })).content_type, 'file_chunk');
      assert.equal(decode(variant({ content_type: 'Text' })).content_type, 'file');
      expectCode(() => decode(variant({ content_type: 0 })), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('binary_content is an array of integers 0..255; a base64 string is rejected', () => {
      assert.deepEqual([...(decode(variant({ binary_content: [0, 1, 2, 255] })).binary_content ?? [])], [0, 1, 2, 255]);
      expectCode(() => decode(variant({ binary_content: 'AAEC' })), MeshDecodeError, 'BAD_FIELD_TYPE');
      expectCode(() => decode(variant({ binary_content: [256] })), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(variant({ binary_content: [-1] })), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(withRaw('content', '"", "binary_content":[1.5]')), MeshDecodeError, 'BAD_FIELD_TYPE');
    });

    it('metadata values must be strings; a repeated metadata key keeps the last value', () => {
      expectCode(() => decode(variant({ metadata: { a: 1 } })), MeshDecodeError, 'BAD_FIELD_TYPE');
      const m = decode(MINIMAL.replace('"metadata":{}', '"metadata":{"k":"1","k":"2"}'));
      assert.equal(m.metadata.get('k'), '2');
    });

    it('identifiers follow the shared rule, also inside forwarded_from and reply_context', () => {
      expectCode(() => decode(variant({ sender: 'x'.repeat(257) })), MeshDecodeError, 'IDENTIFIER_TOO_LONG');
      expectCode(() => decode(variant({ app_id: 'a:b' })), MeshDecodeError, 'BAD_IDENTIFIER');
      expectCode(
        () => decode(variant({ forwarded_from: { original_sender: '..', original_message_id: '00000000-0000-0000-0000-000000000000', original_timestamp: 0, forward_count: 0 } })),
        MeshDecodeError,
        'BAD_IDENTIFIER',
      );
      expectCode(() => decode(variant({ reply_context: { sender: 'a\\b', text: '' } })), MeshDecodeError, 'BAD_IDENTIFIER');
    });

    it('nested structures: required keys, ranges, and ignored unknown keys', () => {
      expectCode(() => decode(variant({ media_metadata: { mime_type: 'a', file_name: 'b' } })), MeshDecodeError, 'MISSING_FIELD');
      expectCode(() => decode(variant({ media_metadata: { mime_type: 'a', file_name: 'b', file_size: 1, width: 4294967296 } })), MeshDecodeError, 'NUMBER_OUT_OF_RANGE');
      expectCode(() => decode(variant({ forwarded_from: { original_sender: 'a', original_message_id: 'x', original_timestamp: 0, forward_count: 0 } })), MeshDecodeError, 'BAD_UUID');
      expectCode(() => decode(variant({ forwarded_from: { original_sender: 'a', original_message_id: '00000000-0000-0000-0000-000000000000', original_timestamp: 0 } })), MeshDecodeError, 'MISSING_FIELD');
      const m = decode(variant({ media_metadata: { mime_type: 'a', file_name: 'b', file_size: 1, width: null, future: { x: 1 } } }));
      assert.deepEqual(m.media_metadata, { mime_type: 'a', file_name: 'b', file_size: 1n });
    });
  });

  describe('whole-document rules', () => {
    it('unknown keys are ignored, transport_peer_id and wire_codec included (and never honoured)', () => {
      const m = decode(variant({ future_field: [1, { a: 2 }], transport_peer_id: 'mallory', wire_codec: 'binary' }));
      assert.ok(!('transport_peer_id' in m));
      assert.ok(!('wire_codec' in m));
    });

    it('a known key appearing twice rejects the message; a repeated unknown key does not', () => {
      expectCode(() => decode(MINIMAL.replace('"ttl":8', '"ttl":8,"ttl":9')), MeshDecodeError, 'JSON_DUPLICATE_KEY');
      expectCode(() => decode(MINIMAL.replace('"reply_to_msg":null', '"reply_to_msg":null,"reply_to_msg":null')), MeshDecodeError, 'JSON_DUPLICATE_KEY');
      assert.equal(decode(MINIMAL.replace('"ttl":8', '"x":1,"ttl":8,"x":2')).ttl, 8);
    });

    it('a known key twice inside a nested structure is rejected too', () => {
      const text = MINIMAL.replace('"reply_to_msg":null', '"reply_to_msg":null,"reply_context":{"sender":"a","text":"","text":""}');
      expectCode(() => decode(text), MeshDecodeError, 'JSON_DUPLICATE_KEY');
    });

    it('whitespace around the document is accepted; non-whitespace after it is not', () => {
      assert.equal(decode(` \n\t\r${MINIMAL}\r\n `).sender, 'a');
      expectCode(() => decode(`${MINIMAL}x`), MeshDecodeError, 'JSON_TRAILING_BYTES');
      expectCode(() => decode(`${MINIMAL}{}`), MeshDecodeError, 'JSON_TRAILING_BYTES');
    });

    it('a document that is not an object is rejected', () => {
      expectCode(() => decode('[]'), MeshDecodeError, 'NOT_AN_OBJECT');
      expectCode(() => decode('"x"'), MeshDecodeError, 'NOT_AN_OBJECT');
    });

    it('syntax errors are coded', () => {
      expectCode(() => decode(MINIMAL.slice(0, -1)), MeshDecodeError, 'JSON_SYNTAX');
      expectCode(() => decode(MINIMAL.replace('"ttl":8,', '"ttl":8,,')), MeshDecodeError, 'JSON_SYNTAX');
      expectCode(() => decode(MINIMAL.replace('}', ',}')), MeshDecodeError, 'JSON_SYNTAX');
    });
  });
});
