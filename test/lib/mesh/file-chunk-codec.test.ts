import { strict as assert } from 'node:assert';
import { toHex } from '../../../lib/bytes';
import { MeshDecodeError, MeshEncodeError } from '../../../lib/mesh/errors';
import {
  decodeFileChunk,
  decodeLegacyFileChunkJson,
  encodeFileChunk,
  FileChunk,
  fileChunkFromMessage,
  isEncryptedChunkPayload,
} from '../../../lib/mesh/file-chunk-codec';
import { createMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

const SAMPLE: FileChunk = {
  file_id: 'file1',
  file_name: 'test.txt',
  file_size: 13n,
  total_chunks: 1,
  chunk_index: 0,
  chunk_data: new TextEncoder().encode('Hello, World!'),
  file_checksum: 'abc123',
};

const hexOf = (s: string): string => Buffer.from(s, 'utf8').toString('hex');

function code(fn: () => unknown, expected: string, type: typeof MeshDecodeError | typeof MeshEncodeError = MeshDecodeError): void {
  assert.throws(fn, (e: unknown) => e instanceof type && e.code === expected, expected);
}

describe('file-chunk-codec', () => {
  describe('encodeFileChunk / decodeFileChunk', () => {
    it('writes FileChunk::to_bytes: u32 LE lengths, u64 LE size, u32 LE total and index', () => {
      const expected =
        '05000000' + hexOf('file1') +
        '08000000' + hexOf('test.txt') +
        '0d00000000000000' +
        '01000000' +
        '00000000' +
        '0d000000' + hexOf('Hello, World!') +
        '06000000' + hexOf('abc123');
      assert.equal(toHex(encodeFileChunk(SAMPLE)), expected);
    });

    it('reads back every field, keeping a leading BOM in a name', () => {
      const chunk = { ...SAMPLE, file_name: '\uFEFFnäme.bin', file_size: 2n ** 40n, total_chunks: 70000, chunk_index: 69999 };
      assert.deepEqual(decodeFileChunk(encodeFileChunk(chunk)), chunk);
    });

    it('rejects every truncation with FILE_CHUNK_TRUNCATED', () => {
      const bytes = encodeFileChunk(SAMPLE);
      for (let n = 0; n < bytes.length; n++) code(() => decodeFileChunk(bytes.subarray(0, n)), 'FILE_CHUNK_TRUNCATED');
    });

    it('ignores bytes after the checksum', () => {
      const bytes = encodeFileChunk(SAMPLE);
      const padded = new Uint8Array(bytes.length + 5);
      padded.set(bytes);
      assert.deepEqual(decodeFileChunk(padded), SAMPLE);
    });

    it('refuses a string length above 4096 and a data length above 128 MiB before reading them', () => {
      const bytes = encodeFileChunk(SAMPLE);
      const longId = bytes.slice();
      new DataView(longId.buffer).setUint32(0, 4097, true);
      code(() => decodeFileChunk(longId), 'FILE_CHUNK_FIELD_TOO_LONG');
      const hugeData = bytes.slice();
      new DataView(hugeData.buffer).setUint32(4 + 5 + 4 + 8 + 8 + 4 + 4, 128 * 1024 * 1024 + 1, true);
      code(() => decodeFileChunk(hugeData), 'FILE_CHUNK_FIELD_TOO_LONG');
      // At exactly 4096 the claim is allowed and the real shortfall is reported instead.
      new DataView(longId.buffer).setUint32(0, 4096, true);
      code(() => decodeFileChunk(longId), 'FILE_CHUNK_TRUNCATED');
    });

    it('refuses a name that is not UTF-8', () => {
      const bytes = encodeFileChunk(SAMPLE);
      bytes[4] = 0xff;
      code(() => decodeFileChunk(bytes), 'FILE_CHUNK_BAD_UTF8');
    });

    it('will not write what a receiver refuses to read', () => {
      code(() => encodeFileChunk({ ...SAMPLE, file_name: 'x'.repeat(4097) }), 'FILE_CHUNK_FIELD_TOO_LONG', MeshEncodeError);
      code(() => encodeFileChunk({ ...SAMPLE, total_chunks: -1 }), 'BAD_FILE_CHUNK', MeshEncodeError);
      code(() => encodeFileChunk({ ...SAMPLE, file_size: 2n ** 64n }), 'BAD_FILE_CHUNK', MeshEncodeError);
    });
  });

  describe('decodeLegacyFileChunkJson', () => {
    const legacy = (over: Record<string, unknown> = {}): string =>
      JSON.stringify({
        file_id: 'file1',
        file_name: 'test.txt',
        file_size: 13,
        total_chunks: 1,
        chunk_index: 0,
        chunk_data: Buffer.from('Hello, World!').toString('base64'),
        file_checksum: 'abc123',
        ...over,
      });

    it('reads the legacy content form, ignoring unknown keys', () => {
      assert.deepEqual(decodeLegacyFileChunkJson(legacy({ extra: true })), SAMPLE);
    });

    it('requires every field', () => {
      const doc = JSON.parse(legacy());
      delete doc.file_checksum;
      code(() => decodeLegacyFileChunkJson(JSON.stringify(doc)), 'MISSING_FIELD');
    });

    it('rejects a repeated field, a float, a negative and a non-canonical base64', () => {
      code(() => decodeLegacyFileChunkJson(legacy().replace('"file_id":"file1"', '"file_id":"a","file_id":"b"')), 'JSON_DUPLICATE_KEY');
      code(() => decodeLegacyFileChunkJson(legacy().replace('"file_size":13', '"file_size":13.0')), 'BAD_FIELD_TYPE');
      code(() => decodeLegacyFileChunkJson(legacy({ chunk_index: -1 })), 'NUMBER_OUT_OF_RANGE');
      code(() => decodeLegacyFileChunkJson(legacy({ chunk_data: 'SGVsbG8' })), 'FILE_CHUNK_BAD_BASE64');
      code(() => decodeLegacyFileChunkJson('not json'), 'JSON_SYNTAX');
    });
  });

  describe('fileChunkFromMessage', () => {
    const base = {
      id: MessageId.random(),
      sender: 'alice',
      recipient: 'bob',
      app_id: 'app',
      priority: 'medium' as const,
      ttl: 8,
      hop_count: 0,
      timestamp: 0n,
      content_type: 'file_chunk' as const,
      content: '',
    };

    it('reads binary_content when present and the legacy content otherwise', () => {
      assert.deepEqual(fileChunkFromMessage(createMessage({ ...base, binary_content: encodeFileChunk(SAMPLE), content: 'ignored' })), SAMPLE);
      const legacy = JSON.stringify({ ...SAMPLE, file_size: 13, chunk_data: Buffer.from(SAMPLE.chunk_data).toString('base64') });
      assert.deepEqual(fileChunkFromMessage(createMessage({ ...base, content: legacy })), SAMPLE);
    });

    it('names an encrypted payload instead of misreading it', () => {
      for (const version of [1, 2, 3]) {
        const payload = Uint8Array.from([0x4d, 0x4c, version, 9, 9, 9]);
        assert.ok(isEncryptedChunkPayload(payload));
        code(() => fileChunkFromMessage(createMessage({ ...base, binary_content: payload })), 'ENCRYPTED_FILE_CHUNK');
      }
      assert.ok(!isEncryptedChunkPayload(Uint8Array.from([0x4d, 0x4c, 4])));
    });

    it('refuses a message that is not a file chunk', () => {
      code(() => fileChunkFromMessage(createMessage({ ...base, content_type: 'file' })), 'NOT_A_FILE_CHUNK');
    });
  });
});
