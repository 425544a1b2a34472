/**
 * fast-check generators for valid messages, covering the awkward corners on purpose: astral and U+E000..U+FFFF
 * metadata keys (the UTF-16 ordering trap), identifiers at the 256-byte cap, base64 tails that do and do not
 * split, the full i64/u64 ranges, and every optional structure present or absent.
 */
import fc from 'fast-check';
import { isValidIdentifier } from '../../../lib/mesh/identifier';
import { CONTENT_TYPES, PRIORITIES } from '../../../lib/mesh/enums';
import { createMessage, type MediaMetadata, type MeshMessage, type MessageFields } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

const trapChars = fc.constantFrom('a', 'z', '\u00e9', '\u07ff', '\u0800', '\uE000', '\uFF21', '\uFFFF', '\u{10000}', '\u{1F600}', '\u{10FFFF}', ' ', '.');

/** Text mixing any code point with the characters the ordering trap is made of. */
export const anyText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(fc.string({ unit: 'binary', maxLength }), fc.string({ unit: trapChars, maxLength }), fc.string({ unit: 'grapheme-ascii', maxLength }));

export const identifier: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 4, arbitrary: anyText(30) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(256), 'é'.repeat(128), '😀'.repeat(64), 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn') },
  )
  .filter(isValidIdentifier);

export const messageId: fc.Arbitrary<MessageId> = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => MessageId.fromBytes(b));

const base64Content: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('', '__MLS_ENC__', 'Grüße:', 'x'),
    // Lengths drawn uniformly, so that tails on both sides of the 48-byte threshold appear.
    fc.integer({ min: 0, max: 120 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
    fc.constantFrom('', '', '=', 'A', '!'),
  )
  .map(([head, raw, junk]) => head + Buffer.from(raw).toString('base64') + junk);

const i64 = fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n);
const u64 = fc.bigInt(0n, 2n ** 64n - 1n);
const u32 = fc.integer({ min: 0, max: 4294967295 });

const mediaMetadata: fc.Arbitrary<MediaMetadata> = fc.record(
  {
    mime_type: anyText(20),
    file_name: anyText(20),
    file_size: u64,
    duration_ms: u64,
    width: u32,
    height: u32,
    thumbnail_base64: anyText(10),
    media_id: anyText(10),
    download_url: anyText(10),
    thumbnail_url: anyText(10),
    encryption_key: anyText(10),
    iv: anyText(10),
    ciphertext_hash: anyText(10),
    sticker_provider: anyText(10),
    sticker_remote_id: anyText(10),
    sticker_kind: anyText(10),
  },
  { requiredKeys: ['mime_type', 'file_name', 'file_size'] },
);

export const messageFields: fc.Arbitrary<MessageFields> = fc
  .record({
    id: messageId,
    sender: identifier,
    recipient: identifier,
    app_id: identifier,
    priority: fc.constantFrom(...PRIORITIES),
    ttl: fc.integer({ min: 0, max: 255 }),
    hop_count: fc.integer({ min: 0, max: 255 }),
    timestamp: i64,
    lamport_clock: u64,
    content_type: fc.constantFrom(...CONTENT_TYPES),
    content: fc.oneof(anyText(80), base64Content),
    binary_content: fc.option(fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)), { nil: undefined }),
    media_metadata: fc.option(mediaMetadata, { nil: undefined }),
    metadata: fc.uniqueArray(fc.tuple(anyText(12), anyText(12)), { selector: ([k]) => k, maxLength: 8 }).map((pairs) => new Map(pairs)),
    requires_ack: fc.boolean(),
    reply_to_msg: fc.option(messageId, { nil: undefined }),
    forwarded_from: fc.option(
      fc.record({ original_sender: identifier, original_message_id: messageId.map((id) => id.toString()), original_timestamp: i64, forward_count: u32 }),
      { nil: undefined },
    ),
    reply_context: fc.option(
      fc.record(
        { sender: identifier, text: anyText(30), timestamp: i64, reply_media_label: anyText(10), reply_content_type: anyText(10) },
        { requiredKeys: ['sender', 'text'] },
      ),
      { nil: undefined },
    ),
  })
  .map((f) => {
    // fc.record writes `undefined` for absent options; the model leaves the key out.
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(f)) if (v !== undefined) out[k] = v;
    return out as unknown as MessageFields;
  });

export const meshMessage: fc.Arbitrary<MeshMessage> = messageFields.map((f) => createMessage(f));

/** What a peer receives: the message with the media secrets removed, as both encoders do. */
export function asSent(m: MeshMessage): MeshMessage {
  if (m.media_metadata === undefined) return m;
  const media = { ...m.media_metadata };
  delete media.encryption_key;
  delete media.iv;
  return { ...m, media_metadata: media };
}
