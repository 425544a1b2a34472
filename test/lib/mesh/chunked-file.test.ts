import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import {
  CHUNK_PROFILES,
  FILE_CHUNK_OVERHEAD_BYTES,
  FILE_STALE_MS,
  MAX_BUFFERED_FILE_BYTES,
  MAX_FILE_ASSEMBLIES,
  MAX_FILE_ASSEMBLIES_PER_SENDER,
  MAX_FILE_SIZE,
  MAX_FILE_TOMBSTONES,
  chunkFile,
  FileReassembler,
  FileReceiveResult,
  maxTotalChunks,
  planFileChunks,
  StaleFileTransfer,
} from '../../../lib/mesh/chunked-file';
import { MeshDecodeError, MeshEncodeError } from '../../../lib/mesh/errors';
import { decodeFileChunk, encodeFileChunk, FileChunk } from '../../../lib/mesh/file-chunk-codec';
import { decodeFrame, encodeFrame } from '../../../lib/mesh/frame';
import { createMessage, MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';

class Clock {
  t = 0;
  now = (): number => this.t;
}

function fileOf(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
const OPTS = { sender: 'alice', recipient: 'bob', appId: 'app', fileName: 'photo.jpg' };

/** A file_chunk message around a hand-made chunk, for shapes chunkFile never produces. */
function chunkMessage(chunk: Partial<FileChunk> & { chunk_data: Uint8Array }, sender = 'alice'): MeshMessage {
  const full: FileChunk = { file_id: 'f1', file_name: 'x.bin', file_size: BigInt(chunk.chunk_data.length), total_chunks: 1, chunk_index: 0, file_checksum: sha256(chunk.chunk_data), ...chunk };
  return createMessage({
    id: MessageId.random(),
    sender,
    recipient: 'bob',
    app_id: 'app',
    priority: 'medium',
    ttl: 8,
    hop_count: 0,
    timestamp: 0n,
    content_type: 'file_chunk',
    content: '',
    binary_content: encodeFileChunk(full),
  });
}

/** Two-chunk transfer `id` of 2 × `half` bytes from `sender`; returns its messages. */
function twoChunks(id: string, half: number, sender = 'alice', seed = 1): MeshMessage[] {
  return chunkFile(fileOf(2 * half, seed), { ...OPTS, sender, fileId: id, chunkSize: half, maxFileSize: 100 * 1024 * 1024 });
}

function refused(fn: () => unknown, code: string, transferFailed?: boolean): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof MeshDecodeError, String(e));
    assert.equal(e.code, code);
    if (transferFailed !== undefined) assert.equal(e.details?.transferFailed, transferFailed);
    return true;
  });
}

function complete(result: FileReceiveResult): Extract<FileReceiveResult, { status: 'complete' }> {
  assert.equal(result.status, 'complete');
  return result as Extract<FileReceiveResult, { status: 'complete' }>;
}

describe('chunked-file', () => {
  it('has the per-transport chunk sizes and windows of the facts', () => {
    assert.deepEqual(CHUNK_PROFILES, {
      ble: { chunkSize: 4096, window: 2 },
      reticulum: { chunkSize: 4096, window: 2 },
      default: { chunkSize: 32768, window: 4 },
      wifiDirect: { chunkSize: 32768, window: 4 },
      internet: { chunkSize: 262144, window: 8 },
      nostr: { chunkSize: 262144, window: 8 },
    });
  });

  it('defaults to the reference receive limits', () => {
    assert.equal(MAX_FILE_SIZE, 100 * 1024 * 1024);
    assert.equal(MAX_FILE_ASSEMBLIES, 32);
    assert.equal(MAX_FILE_ASSEMBLIES_PER_SENDER, 16);
    assert.equal(MAX_BUFFERED_FILE_BYTES, 128 * 1024 * 1024);
    assert.equal(FILE_CHUNK_OVERHEAD_BYTES, 256);
    assert.equal(FILE_STALE_MS, 300_000);
    assert.equal(MAX_FILE_TOMBSTONES, 1024);
    assert.equal(new FileReassembler().bufferedBytes, 0);
  });

  describe('chunkFile', () => {
    const data = fileOf(10_000);

    it('splits by the transport profile: 3 chunks over BLE, 1 over the internet', () => {
      assert.equal(chunkFile(data, { ...OPTS, transport: 'ble' }).length, 3);
      assert.equal(chunkFile(data, { ...OPTS, transport: 'internet' }).length, 1);
      assert.equal(chunkFile(fileOf(32_769), OPTS).length, 2);
      assert.equal(planFileChunks(data, { ...OPTS, transport: 'ble' }).window, 2);
    });

    it('writes the reference layout on every chunk', () => {
      const messages = chunkFile(data, { ...OPTS, transport: 'ble', now: () => 1700000000000 });
      const ids = new Set<string>();
      messages.forEach((m, i) => {
        assert.equal(m.content_type, 'file_chunk');
        assert.equal(m.content, '');
        assert.equal(m.priority, 'medium');
        assert.equal(m.requires_ack, true);
        assert.equal(m.ttl, 8);
        assert.equal(m.hop_count, 0);
        assert.equal(m.timestamp, 1700000000000n);
        assert.equal(m.metadata.get('transport_preference'), 'internet');
        assert.equal(m.sender, 'alice');
        assert.equal(m.recipient, 'bob');
        ids.add(m.id.toString());
        const chunk = decodeFileChunk(m.binary_content as Uint8Array);
        assert.equal(chunk.chunk_index, i);
        assert.equal(chunk.total_chunks, 3);
        assert.equal(chunk.file_size, 10_000n);
        assert.equal(chunk.file_name, 'photo.jpg');
        assert.match(chunk.file_id, /^file_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        assert.equal(chunk.file_checksum, sha256(data));
        assert.deepEqual(chunk.chunk_data, data.subarray(i * 4096, (i + 1) * 4096));
      });
      assert.equal(ids.size, 3);
    });

    it('puts media_metadata and original_content_type on chunk 0 only', () => {
      const messages = chunkFile(data, { ...OPTS, transport: 'ble', mimeType: 'image/jpeg', contentType: 'image', mediaMetadata: { width: 640, height: 480 } });
      assert.deepEqual(messages[0].media_metadata, { mime_type: 'image/jpeg', file_name: 'photo.jpg', file_size: 10_000n, width: 640, height: 480 });
      assert.equal(messages[0].metadata.get('original_content_type'), 'image');
      for (const m of messages.slice(1)) {
        assert.equal(m.media_metadata, undefined);
        assert.equal(m.metadata.has('original_content_type'), false);
      }
      assert.equal(chunkFile(data, OPTS)[0].metadata.get('original_content_type'), 'file');
      assert.equal(chunkFile(data, OPTS)[0].media_metadata?.mime_type, 'application/octet-stream');
    });

    it('keeps one file id across chunks and honours a given one', () => {
      const fileIds = chunkFile(data, { ...OPTS, transport: 'ble', fileId: 'my-file' }).map((m) => decodeFileChunk(m.binary_content as Uint8Array).file_id);
      assert.deepEqual(fileIds, ['my-file', 'my-file', 'my-file']);
    });

    it('refuses what no receiver would accept', () => {
      const code = (fn: () => unknown, c: string): void => assert.throws(fn, (e: unknown) => e instanceof MeshEncodeError && e.code === c, c);
      code(() => chunkFile(new Uint8Array(0), OPTS), 'EMPTY_FILE');
      code(() => chunkFile(fileOf(2000), { ...OPTS, maxFileSize: 1999 }), 'FILE_TOO_LARGE');
      code(() => chunkFile(data, { ...OPTS, chunkSize: 0 }), 'BAD_CHUNK_SIZE');
      code(() => chunkFile(fileOf(2000), { ...OPTS, chunkSize: 1, maxFileSize: 10_000 }), 'TOO_MANY_CHUNKS');
      code(() => chunkFile(data, { ...OPTS, fileName: 'n'.repeat(4097) }), 'FILE_CHUNK_FIELD_TOO_LONG');
      assert.throws(() => chunkFile(data, { ...OPTS, sender: 'bad/sender' }), MeshDecodeError);
    });

    it('bounds total_chunks at max(1024, max_file_size / 1024 + 1)', () => {
      assert.equal(maxTotalChunks(), 102_401);
      assert.equal(maxTotalChunks(10_000), 1024);
      assert.equal(chunkFile(fileOf(1024), { ...OPTS, chunkSize: 1 }).length, 1024);
    });

    it('plans lazily: errors first, then one chunk at a time', () => {
      const plan = planFileChunks(data, { ...OPTS, transport: 'ble' });
      assert.equal(plan.totalChunks, 3);
      assert.equal(plan.checksum, sha256(data));
      assert.equal([...plan.messages].length, 3);
    });
  });

  describe('FileReassembler', () => {
    it('reassembles chunks in any order, with duplicates, and hands over chunk 0’s metadata', () => {
      const data = fileOf(10_000, 3);
      const messages = chunkFile(data, { ...OPTS, transport: 'ble', fileId: 'f', mimeType: 'image/jpeg', contentType: 'image' });
      const r = new FileReassembler();
      assert.deepEqual(r.push(messages[2]), { status: 'progress', fileId: 'f', fileName: 'photo.jpg', sender: 'alice', received: 1, total: 3, bytes: 10_000 - 8192 });
      r.push(messages[2]);
      r.push(messages[0]);
      const done = complete(r.push(messages[1]));
      assert.deepEqual(done.data, data);
      assert.equal(done.checksum, sha256(data));
      assert.equal(done.sender, 'alice');
      assert.equal(done.originalContentType, 'image');
      assert.equal(done.mediaMetadata?.mime_type, 'image/jpeg');
      assert.equal(r.size, 0);
      assert.equal(r.bufferedBytes, 0);
    });

    it('reassembles chunks that crossed the JSON floor and binary v1', () => {
      const data = fileOf(9000, 4);
      const messages = chunkFile(data, { ...OPTS, transport: 'ble' });
      const json = new TextDecoder().decode(encodeFrame(messages[0], 'json'));
      assert.match(json, /"binary_content":\[\d+,\d+,/);
      const r = new FileReassembler();
      r.push(decodeFrame(encodeFrame(messages[0], 'json')));
      r.push(decodeFrame(encodeFrame(messages[1], 'binary')));
      assert.deepEqual(complete(r.push(decodeFrame(encodeFrame(messages[2], 'json')))).data, data);
    });

    it('accepts the legacy JSON content form', () => {
      const data = fileOf(100);
      const legacy = (i: number) =>
        createMessage({
          ...chunkMessage({ chunk_data: data }),
          binary_content: null,
          content: JSON.stringify({
            file_id: 'legacy', file_name: 'l.bin', file_size: 100, total_chunks: 2, chunk_index: i,
            chunk_data: Buffer.from(data.subarray(i * 50, i * 50 + 50)).toString('base64'), file_checksum: sha256(data),
          }),
        });
      const r = new FileReassembler();
      r.push(legacy(1));
      assert.deepEqual(complete(r.push(legacy(0))).data, data);
    });

    describe('bounds on what a chunk claims', () => {
      const r = new FileReassembler({ maxFileSize: 10_000 });
      const d = fileOf(10);
      const cases: [string, Partial<FileChunk> & { chunk_data: Uint8Array }][] = [
        ['total 0', { chunk_data: d, total_chunks: 0 }],
        ['index ≥ total', { chunk_data: d, total_chunks: 2, chunk_index: 2, file_size: 20n }],
        ['file_size 0', { chunk_data: d, file_size: 0n }],
        ['file_size above the maximum', { chunk_data: d, file_size: 10_001n }],
        ['total above the cap', { chunk_data: d, total_chunks: 1025, file_size: 10_000n }],
        ['total above file_size', { chunk_data: d, total_chunks: 11, file_size: 10n }],
        ['empty data', { chunk_data: new Uint8Array(0), file_size: 10n }],
        ['data above file_size', { chunk_data: d, file_size: 9n }],
      ];
      for (const [name, chunk] of cases) {
        it(`refuses ${name}`, () => refused(() => r.push(chunkMessage(chunk)), 'FILE_CHUNK_INVALID', false));
      }

      it('refuses chunks whose running total would exceed file_size, duplicates discounted', () => {
        const r2 = new FileReassembler();
        const common = { file_id: 'run', file_size: 15n, total_chunks: 3, file_checksum: 'c' };
        r2.push(chunkMessage({ ...common, chunk_index: 0, chunk_data: fileOf(7) }));
        r2.push(chunkMessage({ ...common, chunk_index: 0, chunk_data: fileOf(7) }));
        r2.push(chunkMessage({ ...common, chunk_index: 1, chunk_data: fileOf(7) }));
        refused(() => r2.push(chunkMessage({ ...common, chunk_index: 2, chunk_data: fileOf(2) })), 'FILE_CHUNK_INVALID');
        assert.equal(r2.progress('run')?.bytes, 14);
      });
    });

    it('binds a transfer to the sender of its first chunk', () => {
      const [c0, c1] = twoChunks('bound', 100);
      const r = new FileReassembler();
      r.push(c0);
      refused(() => r.push({ ...c1, sender: 'mallory' }), 'FILE_CHUNK_SENDER_MISMATCH', false);
      refused(() => r.push(c1, { sender: 'transport-peer' }), 'FILE_CHUNK_SENDER_MISMATCH');
      assert.equal(complete(r.push(c1)).sender, 'alice');
    });

    it('requires total, file_size and checksum to match the first chunk', () => {
      const r = new FileReassembler();
      const common = { file_id: 'meta', file_size: 20n, total_chunks: 2, file_checksum: 'aa' };
      r.push(chunkMessage({ ...common, chunk_index: 0, chunk_data: fileOf(10) }));
      for (const change of [{ total_chunks: 4 }, { file_size: 21n }, { file_checksum: 'bb' }]) {
        refused(() => r.push(chunkMessage({ ...common, ...change, chunk_index: 1, chunk_data: fileOf(10) })), 'FILE_CHUNK_METADATA_MISMATCH', false);
      }
      assert.equal(r.progress('meta')?.received, 1);
    });

    it('lets a duplicate chunk replace the earlier copy', () => {
      const good = fileOf(20, 1);
      const r = new FileReassembler();
      const common = { file_id: 'dup', file_size: 20n, total_chunks: 2, file_checksum: sha256(good) };
      r.push(chunkMessage({ ...common, chunk_index: 0, chunk_data: fileOf(10, 99) }));
      r.push(chunkMessage({ ...common, chunk_index: 0, chunk_data: good.subarray(0, 10) }));
      assert.equal(r.bufferedBytes, 10 + FILE_CHUNK_OVERHEAD_BYTES);
      assert.deepEqual(complete(r.push(chunkMessage({ ...common, chunk_index: 1, chunk_data: good.subarray(10) }))).data, good);
    });

    it('holds 32 transfers, then refuses and tombstones the next', () => {
      const r = new FileReassembler();
      for (let i = 0; i < 32; i++) r.push(twoChunks(`t${i}`, 10, `s${i % 4}`)[0]);
      const [n0, n1] = twoChunks('t32', 10, 'other');
      refused(() => r.push(n0), 'FILE_TRANSFER_LIMIT', true);
      r.cancel('t0');
      refused(() => r.push(n1), 'FILE_TRANSFER_FAILED', false);
      assert.equal(r.size, 31);
    });

    it('holds 16 transfers per sender', () => {
      const r = new FileReassembler();
      for (let i = 0; i < 16; i++) r.push(twoChunks(`q${i}`, 10, 'greedy')[0]);
      refused(() => r.push(twoChunks('q16', 10, 'greedy')[0]), 'FILE_SENDER_QUOTA', true);
      assert.equal(r.push(twoChunks('other', 10, 'polite')[0]).status, 'progress');
    });

    it('caps buffered bytes (plus the per-chunk charge) and drops the transfer that would overflow', () => {
      // maxFileSize 100 000 gives a floor of 100 000 + 1024 × 256 = 362 144 bytes, whatever is asked for.
      const r = new FileReassembler({ maxFileSize: 100_000, maxBufferedBytes: 1 });
      const held = 25_000 + FILE_CHUNK_OVERHEAD_BYTES;
      for (let i = 0; i < 14; i++) r.push(twoChunks(`b${i}`, 25_000, `s${i}`)[0]);
      assert.equal(r.bufferedBytes, 14 * held);
      refused(() => r.push(twoChunks('b14', 25_000, 's14')[0]), 'FILE_BUFFER_EXHAUSTED', true);
      // An existing transfer whose next chunk overflows is dropped whole, freeing its bytes.
      const small = { file_id: 'small', file_size: 90_000n, total_chunks: 3, file_checksum: 'x' };
      r.push(chunkMessage({ ...small, chunk_index: 0, chunk_data: fileOf(100) }, 'z'));
      refused(
        () => r.push(chunkMessage({ ...small, chunk_index: 1, chunk_data: fileOf(45_000) }, 'z')),
        'FILE_BUFFER_EXHAUSTED',
        true,
      );
      assert.equal(r.progress('small'), undefined);
      assert.equal(r.bufferedBytes, 14 * held);
    });

    it('still completes a maximum-size file when the budget was set too low', () => {
      const r = new FileReassembler({ maxFileSize: 50_000, maxBufferedBytes: 10 });
      const data = fileOf(50_000);
      let last: FileReceiveResult | undefined;
      for (const m of chunkFile(data, { ...OPTS, chunkSize: 1000, maxFileSize: 50_000 })) last = r.push(m);
      assert.deepEqual(complete(last as FileReceiveResult).data, data);
    });

    it('fails a transfer whose length differs from file_size, and tombstones it', () => {
      const r = new FileReassembler();
      const common = { file_id: 'short', file_size: 10n, total_chunks: 2, file_checksum: 'c' };
      r.push(chunkMessage({ ...common, chunk_index: 0, chunk_data: fileOf(3) }));
      refused(() => r.push(chunkMessage({ ...common, chunk_index: 1, chunk_data: fileOf(3) })), 'FILE_SIZE_MISMATCH', true);
      refused(() => r.push(chunkMessage({ ...common, chunk_index: 1, chunk_data: fileOf(3) })), 'FILE_TRANSFER_FAILED', false);
      assert.equal(r.bufferedBytes, 0);
    });

    it('fails a transfer whose SHA-256 differs from the claim, and tombstones it', () => {
      const r = new FileReassembler();
      const [c0, c1] = twoChunks('tampered', 50);
      r.push(c0);
      const chunk = decodeFileChunk(c1.binary_content as Uint8Array);
      const tampered = createMessage({ ...c1, binary_content: encodeFileChunk({ ...chunk, chunk_data: fileOf(50, 77) }) });
      refused(() => r.push(tampered), 'FILE_CHECKSUM_MISMATCH', true);
      refused(() => r.push(c1), 'FILE_TRANSFER_FAILED');
      assert.equal(r.counters.failed, 1);
    });

    it('remembers a bounded number of tombstones, oldest forgotten first', () => {
      const r = new FileReassembler({ maxTombstones: 2, maxAssembliesPerSender: 1 });
      r.push(twoChunks('keep', 10, 'x')[0]);
      for (const id of ['a', 'b', 'c']) refused(() => r.push(twoChunks(id, 10, 'x')[0]), 'FILE_SENDER_QUOTA');
      r.cancel('keep');
      assert.equal(r.push(twoChunks('a', 10, 'x')[0]).status, 'progress');
      r.cancel('a');
      refused(() => r.push(twoChunks('b', 10, 'x')[0]), 'FILE_TRANSFER_FAILED');
    });

    it('drops a transfer after 300 s without progress, reports it and tombstones it', () => {
      const clock = new Clock();
      const stale: StaleFileTransfer[] = [];
      const r = new FileReassembler({ now: clock.now, onStale: (t) => stale.push(t) });
      const [c0, c1] = twoChunks('slow', 10);
      const [d0] = twoChunks('other', 10, 'bob');
      r.push(c0);
      clock.t = 300_000;
      assert.deepEqual(r.sweep(), []);
      clock.t = 301_000;
      r.push(d0); // the periodic sweep inside push (at most once a second) finds it
      assert.deepEqual(stale, [{ fileId: 'slow', fileName: 'photo.jpg', sender: 'alice', received: 1, total: 2 }]);
      refused(() => r.push(c1), 'FILE_TRANSFER_FAILED');
      assert.equal(r.counters.stale, 1);
    });

    it('counts progress from the last chunk, and lets a tombstone lapse once its chunks stop', () => {
      const clock = new Clock();
      const r = new FileReassembler({ now: clock.now });
      const chunks = chunkFile(fileOf(30), { ...OPTS, fileId: 'steady', chunkSize: 10 });
      r.push(chunks[0]);
      clock.t = 250_000;
      r.push(chunks[1]);
      clock.t = 500_000;
      assert.deepEqual(r.sweep(), []);
      clock.t = 550_001;
      assert.equal(r.sweep().length, 1);
      clock.t = 700_000;
      refused(() => r.push(chunks[2]), 'FILE_TRANSFER_FAILED'); // refreshes the tombstone
      clock.t = 1_000_001;
      r.sweep();
      assert.equal(r.push(chunks[2]).status, 'progress');
    });

    it('refuses a late copy of a chunk of a file already delivered, instead of starting over', () => {
      const r = new FileReassembler();
      const [c0, c1] = twoChunks('done', 10);
      r.push(c0);
      complete(r.push(c1));
      refused(() => r.push(c0), 'FILE_TRANSFER_COMPLETE', false);
      assert.equal(r.size, 0);
    });

    it('throws only MeshDecodeError for payloads it cannot read, and counts them', () => {
      const r = new FileReassembler();
      const junk = createMessage({ ...chunkMessage({ chunk_data: fileOf(5) }), binary_content: fileOf(40) });
      assert.throws(() => r.push(junk), MeshDecodeError);
      assert.throws(() => r.push(createMessage({ ...junk, content_type: 'text' })), MeshDecodeError);
      assert.equal(r.counters.rejected, 2);
    });
  });
});
