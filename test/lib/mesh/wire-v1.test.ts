import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { decodeJsonFloor, encodeJsonFloor } from '../../../lib/mesh/json-floor';
import { LAMPORT_CLOCK_MAX } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { decodeWireV1, encodeWireV1, wireV1DtoOf, writeWireV1Dto, type WireV1Dto } from '../../../lib/mesh/wire-v1';
import { ascii, baseMessage, bytesFromHex, expectCode, fullMessage, hex } from './fixtures';

const SEVENS = '07'.repeat(16);

/** The reference's `base_dto()` as the flat structure. */
function baseDto(overrides: Partial<WireV1Dto> = {}): WireV1Dto {
  return {
    id: new Uint8Array(16).fill(7),
    sender: 'alice',
    recipient: 'bob',
    app_id: 'app',
    priority: 1,
    ttl: 8,
    hop_count: 0,
    timestamp: 1n,
    lamport_clock: 0n,
    content_type: 0,
    content: '',
    binary_content: undefined,
    media_metadata_json: undefined,
    metadata: [],
    requires_ack: true,
    reply_to_msg: undefined,
    forwarded_from_json: undefined,
    ext: [],
    ...overrides,
  };
}

/** Golden vector 1 (wire_v1_golden_layout_is_frozen), 37 bytes. */
const GOLDEN_1 = bytesFromHex(
  'f5', //                                   magic, wire v1
  '00000000000000000000000000000000', //     id: 16 raw bytes, no length prefix
  '01 61', //                                sender "a": varint length 1, then UTF-8
  '01 62', //                                recipient "b"
  '01 63', //                                app_id "c"
  '01', //                                   priority Medium (u8)
  '08', //                                   ttl 8 (u8)
  '00', //                                   hop_count 0 (u8)
  '00', //                                   timestamp 0 (zigzag varint)
  '00', //                                   lamport_clock 0 (varint)
  '00', //                                   content_type Text (u8)
  '00', //                                   content "" (length 0)
  '00', //                                   binary_content None
  '00', //                                   media_metadata_json None
  '00', //                                   metadata: 0 pairs
  '01', //                                   requires_ack true
  '00', //                                   reply_to_msg None
  '00', //                                   forwarded_from_json None
  '00', //                                   ext: 0 entries
);

const BASE_PREFIX = [
  'f5', //                                   magic
  SEVENS, //                                 id 16×07
  '05' + ascii('alice'), //                  sender
  '03' + ascii('bob'), //                    recipient
  '03' + ascii('app'), //                    app_id
  '01', //                                   priority Medium
  '08', //                                   ttl 8
  '00', //                                   hop_count 0
  '02', //                                   timestamp 1 → zigzag 2
  '00', //                                   lamport_clock 0
  '00', //                                   content_type Text
  '00', //                                   content ""
  '00', //                                   binary_content None
  '00', //                                   media_metadata_json None
  '00', //                                   metadata: 0 pairs
  '01', //                                   requires_ack true
  '00', //                                   reply_to_msg None
  '00', //                                   forwarded_from_json None
];

/** Golden vector 2 (…_with_reply_context_ext_is_frozen), 72 bytes. */
const GOLDEN_2 = bytesFromHex(
  ...BASE_PREFIX,
  '01', //                                   ext: 1 entry
  '02', //                                   tag 2 (varint, one byte)
  '19', //                                   25 payload bytes
  ascii('{"sender":"c","text":"t"}'),
);

/** Golden vector 3 (…_with_b64_tail_ext_is_frozen), 49 bytes. */
const GOLDEN_3 = bytesFromHex(
  ...BASE_PREFIX,
  '01', //                                   ext: 1 entry
  '01', //                                   tag 1
  '02', //                                   2 payload bytes
  'dead', //                                 decoded tail; content becomes "" + base64(DE AD) = "3q0="
);

describe('lib/mesh/wire-v1', () => {
  describe('golden vectors (if one fails the format changed: bump the version, do not edit the bytes)', () => {
    it('vector 1: the minimal layout is 37 bytes, byte for byte', () => {
      const m = baseMessage({ id: MessageId.fromBytes(new Uint8Array(16)), sender: 'a', recipient: 'b', app_id: 'c', timestamp: 0n });
      const frame = encodeWireV1(m);
      assert.equal(frame.length, 37);
      assert.equal(hex(frame), hex(GOLDEN_1));
      assert.equal(hex(writeWireV1Dto(baseDto({ id: new Uint8Array(16), sender: 'a', recipient: 'b', app_id: 'c', timestamp: 0n }))), hex(GOLDEN_1));
      const back = decodeWireV1(GOLDEN_1);
      assert.equal(back.id.toString(), '00000000-0000-0000-0000-000000000000');
      assert.equal(back.sender, 'a');
      assert.equal(back.requires_ack, true);
    });

    it('vector 2: reply context rides as ext tag 2, 72 bytes', () => {
      const m = baseMessage({ reply_context: { sender: 'c', text: 't' } });
      assert.equal(GOLDEN_2.length, 72);
      assert.equal(hex(encodeWireV1(m)), hex(GOLDEN_2));
      assert.deepEqual(decodeWireV1(GOLDEN_2).reply_context, { sender: 'c', text: 't' });
    });

    it('vector 3: ext tag 1 DE AD decodes to content "3q0=", 49 bytes', () => {
      assert.equal(GOLDEN_3.length, 49);
      assert.equal(hex(writeWireV1Dto(baseDto({ ext: [[1, new Uint8Array([0xde, 0xad])]] }))), hex(GOLDEN_3));
      assert.equal(decodeWireV1(GOLDEN_3).content, '3q0=');
    });
  });

  describe('round trips', () => {
    it('every field survives, the magic byte is 0xF5 and no transport field appears', () => {
      const m = fullMessage();
      const frame = encodeWireV1(m);
      assert.equal(frame[0], 0xf5);
      const back = decodeWireV1(frame);
      assert.deepEqual(back, m);
      assert.ok(!('transport_peer_id' in back));
      assert.ok(!('wire_codec' in back));
    });

    it('the minimal defaults survive: requires_ack true and every optional absent', () => {
      const back = decodeWireV1(encodeWireV1(baseMessage()));
      assert.equal(back.requires_ack, true);
      for (const key of ['binary_content', 'media_metadata', 'reply_to_msg', 'forwarded_from', 'reply_context']) assert.ok(!(key in back), key);
    });

    it('a binary frame is less than half the JSON size', () => {
      const m = baseMessage({ content: 'hello there, see you at eight', sender: 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn' });
      assert.ok(encodeWireV1(m).length * 2 < encodeJsonFloor(m).length);
    });

    it('content type 8 decodes as poll', () => {
      assert.equal(decodeWireV1(writeWireV1Dto(baseDto({ content_type: 8 }))).content_type, 'poll');
    });

    it('plain content emits no ext entries', () => {
      const frame = encodeWireV1(baseMessage({ content: 'just words, nothing encoded here at all, and long enough to matter for a split' }));
      assert.equal(frame[frame.length - 1], 0x00, 'ext: 0 entries');
      assert.deepEqual(wireV1DtoOf(decodeWireV1(frame)).ext, []);
    });
  });

  describe('validation shared with the JSON path', () => {
    it('a sender of 257 bytes is rejected', () => {
      expectCode(() => decodeWireV1(writeWireV1Dto(baseDto({ sender: 'a'.repeat(257) }))), MeshDecodeError, 'IDENTIFIER_TOO_LONG');
    });

    it('a sender of exactly 256 bytes passes', () => {
      assert.equal(decodeWireV1(writeWireV1Dto(baseDto({ sender: 'é'.repeat(128) }))).sender.length, 128);
    });

    it('recipient "evil/path" is rejected', () => {
      expectCode(() => decodeWireV1(writeWireV1Dto(baseDto({ recipient: 'evil/path' }))), MeshDecodeError, 'BAD_IDENTIFIER');
    });

    it('lamport u64::MAX is clamped to 2^63 − 1, not rejected', () => {
      const back = decodeWireV1(writeWireV1Dto(baseDto({ lamport_clock: 18446744073709551615n })));
      assert.equal(back.lamport_clock, LAMPORT_CLOCK_MAX);
      assert.equal(back.lamport_clock, 9223372036854775807n);
    });

    it('unknown enum numbers degrade: content type 200 → file, priority 200 → medium', () => {
      const back = decodeWireV1(writeWireV1Dto(baseDto({ content_type: 200, priority: 200 })));
      assert.equal(back.content_type, 'file');
      assert.equal(back.priority, 'medium');
    });

    it('ttl 0 is accepted', () => {
      assert.equal(decodeWireV1(writeWireV1Dto(baseDto({ ttl: 0 }))).ttl, 0);
    });
  });

  describe('what is not a v1 frame', () => {
    it('[7B 00] and empty input are errors', () => {
      expectCode(() => decodeWireV1(new Uint8Array([0x7b, 0x00])), MeshDecodeError, 'NOT_WIRE_V1');
      expectCode(() => decodeWireV1(new Uint8Array(0)), MeshDecodeError, 'NOT_WIRE_V1');
    });

    it('the magic byte alone is truncated', () => {
      expectCode(() => decodeWireV1(new Uint8Array([0xf5])), MeshDecodeError, 'TRUNCATED');
    });

    it('every proper prefix of a valid frame is rejected as truncated', () => {
      const frame = encodeWireV1(fullMessage());
      for (let n = 1; n < frame.length; n++) expectCode(() => decodeWireV1(frame.subarray(0, n)), MeshDecodeError, 'TRUNCATED');
    });
  });

  describe('ext tag 1 (base64 tail)', () => {
    it('__MLS_ENC__ + base64 of 90×07 rides as head "__MLS_ENC__" and ext [(1, 90×07)], smaller than JSON', () => {
      const raw = new Uint8Array(90).fill(7);
      const m = baseMessage({ content: '__MLS_ENC__' + Buffer.from(raw).toString('base64') });
      const frame = encodeWireV1(m);
      assert.equal(hex(frame), hex(writeWireV1Dto(baseDto({ content: '__MLS_ENC__', ext: [[1, raw]] }))));
      assert.ok(frame.length < encodeJsonFloor(m).length);
      assert.equal(decodeWireV1(frame).content, m.content);
    });

    it('unknown tags are skipped and only the first tag 1 counts: [(99,..),(1,"AB"),(1,"ZZ")] gives "head:QUI="', () => {
      const frame = writeWireV1Dto(
        baseDto({
          content: 'head:',
          ext: [
            [99, new Uint8Array([1, 2, 3])],
            [1, Buffer.from('AB')],
            [1, Buffer.from('ZZ')],
          ],
        }),
      );
      assert.equal(decodeWireV1(frame).content, 'head:QUI=');
    });

    it('a tag above 65535 is a bad varint', () => {
      const frame = bytesFromHex(...BASE_PREFIX, '01', 'ffff04', '00');
      expectCode(() => decodeWireV1(frame), MeshDecodeError, 'BAD_VARINT');
      // 65535 itself (ff ff 03) is a valid, unknown tag.
      assert.equal(decodeWireV1(bytesFromHex(...BASE_PREFIX, '01', 'ffff03', '00')).content, '');
    });
  });

  describe('ext tag 2 (reply context)', () => {
    it('full and minimal reply contexts round-trip', () => {
      for (const rc of [{ sender: 's', text: 'x', timestamp: -5n, reply_media_label: 'Voice', reply_content_type: 'voice_note' }, { sender: 's', text: '' }]) {
        assert.deepEqual(decodeWireV1(encodeWireV1(baseMessage({ reply_context: rc }))).reply_context, rc);
      }
    });

    it('coexists with a base64 tail, tag 1 written before tag 2', () => {
      const m = baseMessage({ content: 'A'.repeat(64), reply_context: { sender: 'c', text: 't' } });
      const expected = writeWireV1Dto(
        baseDto({
          content: '',
          ext: [
            [1, new Uint8Array(48)],
            [2, Buffer.from('{"sender":"c","text":"t"}')],
          ],
        }),
      );
      assert.equal(hex(encodeWireV1(m)), hex(expected));
      assert.deepEqual(decodeWireV1(encodeWireV1(m)), m);
    });

    it('only the first reply context entry is honoured', () => {
      const frame = writeWireV1Dto(
        baseDto({
          ext: [
            [2, Buffer.from('{"sender":"first","text":"1"}')],
            [2, Buffer.from('{"sender":"second","text":"2"}')],
          ],
        }),
      );
      assert.equal(decodeWireV1(frame).reply_context?.sender, 'first');
    });

    it('a malformed reply context rejects the frame: not JSON, or sender "evil/path"', () => {
      expectCode(() => decodeWireV1(writeWireV1Dto(baseDto({ ext: [[2, Buffer.from('not json')]] }))), MeshDecodeError, 'JSON_SYNTAX');
      expectCode(
        () => decodeWireV1(writeWireV1Dto(baseDto({ ext: [[2, Buffer.from('{"sender":"evil/path","text":"t"}')]] }))),
        MeshDecodeError,
        'BAD_IDENTIFIER',
      );
    });
  });

  describe('decoder leniency, as the reference', () => {
    it('trailing bytes after ext are ignored', () => {
      const frame = bytesFromHex(hex(GOLDEN_1), 'deadbeef');
      assert.equal(decodeWireV1(frame).sender, 'a');
    });

    it('an overlong varint is accepted within the type width: 80 00 is 0', () => {
      const frame = bytesFromHex('f5', '00'.repeat(16), '8100 61', '0162', '0163', '010800', '8000', '00', '00', '00', '000000', '01', '00', '00', '00');
      const m = decodeWireV1(frame);
      assert.equal(m.sender, 'a');
      assert.equal(m.timestamp, 0n);
    });

    it('a u64 varint longer than 10 bytes, or whose 10th byte exceeds 0x01, is refused', () => {
      const head = ['f5', '00'.repeat(16), '0161', '0162', '0163', '010800', '00'];
      expectCode(() => decodeWireV1(bytesFromHex(...head, 'ffffffffffffffffff02')), MeshDecodeError, 'BAD_VARINT');
      expectCode(() => decodeWireV1(bytesFromHex(...head, 'ffffffffffffffffff8000')), MeshDecodeError, 'BAD_VARINT');
      const max = decodeWireV1(bytesFromHex(...head, 'ffffffffffffffffff01', '00', '00', '00', '00', '00', '01', '00', '00', '00'));
      assert.equal(max.lamport_clock, LAMPORT_CLOCK_MAX);
    });

    it('metadata need not be sorted on decode, and a repeated key keeps the last value', () => {
      const frame = writeWireV1Dto(
        baseDto({
          metadata: [
            ['z', '1'],
            ['a', '2'],
            ['z', '3'],
          ],
        }),
      );
      assert.deepEqual([...decodeWireV1(frame).metadata], [
        ['z', '3'],
        ['a', '2'],
      ]);
    });

    it('a bool or option tag other than 00/01 is an error', () => {
      const bad = Buffer.from(GOLDEN_1);
      bad[33] = 2; // requires_ack
      expectCode(() => decodeWireV1(bad), MeshDecodeError, 'BAD_BOOL');
      const badOption = Buffer.from(GOLDEN_1);
      badOption[30] = 2; // binary_content tag
      expectCode(() => decodeWireV1(badOption), MeshDecodeError, 'BAD_OPTION_TAG');
    });

    it('invalid UTF-8 in a string is an error', () => {
      const frame = bytesFromHex('f5', '00'.repeat(16), '02c328', '0162', '0163', '0108000000000000000001000000');
      expectCode(() => decodeWireV1(frame), MeshDecodeError, 'BAD_UTF8');
    });

    it('a length prefix beyond the remaining bytes is refused before anything is allocated', () => {
      // content declares 2^62 bytes; a decoder that allocated first would die here instead of throwing.
      const frame = bytesFromHex('f5', '00'.repeat(16), '0161', '0162', '0163', '010800000000', '8080808080808080 40');
      expectCode(() => decodeWireV1(frame), MeshDecodeError, 'TRUNCATED');
      // A metadata count of 2^40 with no bytes behind it.
      const count = bytesFromHex('f5', '00'.repeat(16), '0161', '0162', '0163', '0108000000000000', '00', '8080808080 20');
      expectCode(() => decodeWireV1(count), MeshDecodeError, 'TRUNCATED');
    });

    it('media metadata and forward attribution blobs are parsed strictly', () => {
      expectCode(() => decodeWireV1(writeWireV1Dto(baseDto({ media_metadata_json: Buffer.from('{"mime_type":"a"}') }))), MeshDecodeError, 'MISSING_FIELD');
      expectCode(() => decodeWireV1(writeWireV1Dto(baseDto({ forwarded_from_json: Buffer.from('{') }))), MeshDecodeError, 'JSON_SYNTAX');
    });
  });

  describe('metadata order on encode', () => {
    it('sorts keys by UTF-8 bytes, where JavaScript < would invert U+FF21 and U+1F600', () => {
      const astral = '\u{1F600}';
      const fullwidth = '\uFF21';
      assert.ok(astral < fullwidth, 'the UTF-16 trap is real');
      const m = baseMessage({ metadata: new Map([[astral, 'x'], [fullwidth, 'y'], ['\uE000', 'z'], ['a', 'w']]) });
      const keys = wireV1DtoOf(m).metadata.map(([k]) => k);
      assert.deepEqual(keys, ['a', '\uE000', fullwidth, astral]);
      const sorted = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      assert.deepEqual(keys, sorted);
    });
  });

  describe('media secrets', () => {
    it('encryption_key and iv never reach the frame', () => {
      const m = baseMessage({
        content_type: 'image',
        media_metadata: { mime_type: 'image/png', file_name: 'a.png', file_size: 1n, encryption_key: 'SECRETKEY', iv: 'SECRETIV', media_id: 'm' },
      });
      const frame = encodeWireV1(m);
      assert.ok(!Buffer.from(frame).includes('SECRET'));
      const back = decodeWireV1(frame);
      assert.equal(back.media_metadata?.encryption_key, undefined);
      assert.equal(back.media_metadata?.iv, undefined);
      assert.equal(back.media_metadata?.media_id, 'm');
    });
  });

  it('agrees with the JSON floor on a full message', () => {
    const m = fullMessage();
    assert.deepEqual(decodeWireV1(encodeWireV1(m)), decodeJsonFloor(encodeJsonFloor(m)));
  });
});
