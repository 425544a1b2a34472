/**
 * Valid messages that tests start from (adversarial cases tamper with a copy), plus small assertion helpers.
 */
import { strict as assert } from 'node:assert';
import { MeshError } from '../../../lib/mesh/errors';
import { createMessage, type MeshMessage, type MessageFields } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

/** The inputs of the reference's `base_dto()`: id 16×07, alice → bob on "app", ts 1. */
export function baseFields(overrides: Partial<MessageFields> = {}): MessageFields {
  return {
    id: MessageId.fromBytes(new Uint8Array(16).fill(7)),
    sender: 'alice',
    recipient: 'bob',
    app_id: 'app',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: 1n,
    lamport_clock: 0n,
    content_type: 'text',
    content: '',
    requires_ack: true,
    ...overrides,
  };
}

export function baseMessage(overrides: Partial<MessageFields> = {}): MeshMessage {
  return createMessage(baseFields(overrides));
}

/** Every field set, nested structures included, with non-ASCII text and a large clock. */
export function fullMessage(): MeshMessage {
  return createMessage({
    id: '67e55044-10b1-426f-9247-bb680e5fe0c8',
    sender: 'off1qysluvwl5922yctzd0u9gpr06gn3k7ldfvgtwgvn',
    recipient: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf',
    app_id: 'com.example.chat',
    priority: 'critical',
    ttl: 5,
    hop_count: 2,
    timestamp: -1700000000123n,
    lamport_clock: 9007199254740993n,
    content_type: 'image',
    content: 'caption: Grüße 👋 "quoted"\n',
    binary_content: Buffer.from([0, 1, 2, 127, 128, 255]),
    media_metadata: {
      mime_type: 'image/jpeg',
      file_name: 'cat.jpg',
      file_size: 123456n,
      duration_ms: 0n,
      width: 640,
      height: 480,
      thumbnail_base64: 'AAAA',
      media_id: 'm-1',
      download_url: 'https://media.example/1',
      ciphertext_hash: 'abc',
      sticker_kind: 'none',
    },
    metadata: new Map([
      ['zeta', 'last'],
      ['alpha', 'first'],
      ['ключ', 'значение'],
    ]),
    requires_ack: false,
    reply_to_msg: 'urn:uuid:00112233-4455-6677-8899-aabbccddeeff',
    forwarded_from: {
      original_sender: 'carol',
      original_message_id: '{A1A2A3A4-B1B2-C1C2-D1D2-D3D4D5D6D7D8}',
      original_timestamp: 42n,
      forward_count: 3,
    },
    reply_context: { sender: 'dave', text: 'earlier', timestamp: 7n, reply_media_label: 'Photo', reply_content_type: 'image' },
  });
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Concatenates annotated hex pieces (spaces allowed) into bytes. */
export function bytesFromHex(...parts: string[]): Uint8Array {
  return new Uint8Array(Buffer.from(parts.join('').replace(/\s+/g, ''), 'hex'));
}

export function ascii(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

export function expectCode(fn: () => unknown, type: typeof MeshError, code: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof type, `expected ${type.name}, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    assert.equal((err as MeshError).code, code, (err as Error).message);
    return true;
  });
}
