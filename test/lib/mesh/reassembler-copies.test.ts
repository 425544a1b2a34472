/**
 * Reassemblers hold their own copies (issue 14 §1): radios and sockets hand over Buffers, and `Buffer#slice` is a
 * view, so a stored "copy" made that way kept the caller's whole source buffer alive and changed when it changed.
 */
import assert from 'node:assert/strict';
import { encodeFragments, FragmentReassembler } from '../../../lib/mesh/ble-fragment';
import { chunkFile, FileReassembler } from '../../../lib/mesh/chunked-file';
import { fileChunkFromMessage } from '../../../lib/mesh/file-chunk-codec';

/** `bytes` placed inside a large Buffer, as a radio's read buffer would hold it; the view and its source. */
function inBigBuffer(bytes: Uint8Array): { view: Buffer; source: Buffer } {
  const source = Buffer.alloc(1 << 20, 0xee);
  source.set(bytes, 4096);
  return { view: source.subarray(4096, 4096 + bytes.length), source };
}

describe('reassemblers copy out of caller buffers', () => {
  const frame = Uint8Array.from({ length: 600 }, (_, i) => i & 0xff);

  it('FragmentReassembler: a stored fragment is unaffected when the caller reuses its buffer, and owns a small buffer', () => {
    const [first, ...rest] = encodeFragments(frame, 'msg-1', 185);
    const r = new FragmentReassembler();
    const { view, source } = inBigBuffer(first);
    r.push(view);
    source.fill(0);
    let done: Uint8Array | undefined;
    for (const f of rest) {
      const out = r.push(Buffer.from(f));
      if (out.status === 'complete') done = out.frame;
    }
    assert.ok(done);
    assert.deepEqual(Buffer.from(done), Buffer.from(frame));
    assert.ok(done.buffer.byteLength < 4096, 'the frame does not sit in a caller-sized buffer');
  });

  it('FragmentReassembler: a single-fragment frame is handed back as its own copy', () => {
    const [only] = encodeFragments(frame.subarray(0, 100), 'msg-2', 185);
    const { view, source } = inBigBuffer(only);
    const out = new FragmentReassembler().push(view);
    assert.equal(out.status, 'complete');
    const copy = out.status === 'complete' ? out.frame : new Uint8Array();
    source.fill(0);
    assert.deepEqual(Buffer.from(copy), Buffer.from(frame.subarray(0, 100)));
    assert.ok(copy.buffer !== source.buffer);
  });

  it('FileReassembler: a stored chunk is unaffected when the caller reuses the buffer it came in', () => {
    const data = Uint8Array.from({ length: 20_000 }, (_, i) => (i * 7) & 0xff);
    const [first, ...rest] = chunkFile(data, { sender: 'alice', recipient: 'bob', appId: 'app', fileName: 'f.bin', transport: 'ble' }).map(fileChunkFromMessage);
    const r = new FileReassembler();
    const { view, source } = inBigBuffer(first.chunk_data);
    r.pushChunk('alice', { ...first, chunk_data: view });
    source.fill(0);
    const results = rest.map((c) => r.pushChunk('alice', c));
    const done = results.at(-1);
    assert.equal(done?.status, 'complete');
    assert.deepEqual(done?.status === 'complete' ? Buffer.from(done.data) : undefined, Buffer.from(data));
  });
});
