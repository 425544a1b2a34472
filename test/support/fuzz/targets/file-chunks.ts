/**
 * Chunked files: a file-chunk payload (`decodeFileChunk`), a legacy JSON chunk (`decodeLegacyFileChunkJson`) or a
 * whole `file_chunk` frame (`decodeFrame`, then `FileReassembler.push`) goes into one long-lived `FileReassembler`
 * under one of three senders. Only `MeshDecodeError` may escape, and the reassembler stays inside its bounds.
 */
import { chunkFile, FileReassembler, MAX_FILE_ASSEMBLIES } from '../../../../lib/mesh/chunked-file';
import { decodeFileChunk, decodeLegacyFileChunkJson, encodeFileChunk } from '../../../../lib/mesh/file-chunk-codec';
import { decodeFrame, encodeFrame } from '../../../../lib/mesh/frame';
import { MessageId } from '../../../../lib/mesh/message-id';
import { concatBytes, type FuzzRng, mutateBytes, mutateJson } from '../engine';
import { FuzzInvariantError, type FuzzSession, type FuzzTarget, type Verdict } from '../runner';
import { meshOwn } from './mesh-frames';

export type FileChunkInput = { kind: 'payload' | 'legacy' | 'frame'; bytes: Uint8Array };

const SENDERS = ['alice', 'bob', 'carol'];
const MAX_FILE_BYTES = 1_000_000;

export const fileChunksTarget: FuzzTarget<FileChunkInput> = {
  name: 'file-chunks',
  about: 'decodeFileChunk, decodeLegacyFileChunkJson and file_chunk frames into a long-lived FileReassembler; bounds checked after every input',
  own: meshOwn,
  start(rng: FuzzRng): FuzzSession<FileChunkInput> {
    // Fixed ids and clock, so the corpus (and so every input) follows from the seed alone.
    const messages = chunkFile(rng.bytes(9000), {
      sender: 'alice',
      recipient: 'bob',
      appId: 'app',
      fileName: 'f.bin',
      transport: 'ble',
      fileId: 'file_fuzz',
      now: () => 1_700_000_000_000,
    }).map((m) => ({ ...m, id: MessageId.fromBytes(rng.bytes(16)) }));
    const payloads = messages.map((m) => m.binary_content as Uint8Array);
    payloads.push(
      encodeFileChunk({ file_id: '', file_name: '', file_size: 1n, total_chunks: 1, chunk_index: 0, chunk_data: new Uint8Array([1]), file_checksum: '' }),
    );
    const frames = messages.slice(0, 4).map((m) => encodeFrame(m, 'binary'));
    frames.push(encodeFrame(messages[0], 'json'));
    const legacy = [
      { file_id: 'file_x', file_name: 'n', file_size: 3, total_chunks: 1, chunk_index: 0, chunk_data: 'AQID', file_checksum: 'abc' },
      { file_id: 'file_y', file_name: 'ü.bin', file_size: 6, total_chunks: 2, chunk_index: 1, chunk_data: 'BAUG', file_checksum: '' },
    ].map((doc) => new Uint8Array(Buffer.from(JSON.stringify(doc), 'utf8')));

    let clock = 0;
    const files = new FileReassembler({ maxFileSize: MAX_FILE_BYTES, now: () => clock });
    let completed = 0;
    return {
      next: (): FileChunkInput => {
        clock += rng.below(100);
        const roll = rng.below(20);
        if (roll < 3) return { kind: 'legacy', bytes: rng.chance(0.6) ? mutateJson(rng, rng.pick(legacy), legacy) : mutateBytes(rng, rng.pick(legacy), legacy) };
        if (roll < 6) return { kind: 'frame', bytes: mutateBytes(rng, rng.pick(frames), frames) };
        const original = rng.pick(payloads);
        return { kind: 'payload', bytes: roll === 6 ? original : mutateBytes(rng, original, payloads) };
      },
      feed: (input): Verdict => {
        const sender = rng.pick(SENDERS);
        let result;
        if (input.kind === 'frame') result = files.push(decodeFrame(input.bytes), { sender });
        else {
          const chunk = input.kind === 'payload' ? decodeFileChunk(input.bytes) : decodeLegacyFileChunkJson(Buffer.from(input.bytes).toString('latin1'));
          result = files.pushChunk(sender, chunk);
        }
        if (result.status === 'complete') completed++;
        if (files.size > MAX_FILE_ASSEMBLIES) throw new FuzzInvariantError(`${files.size} transfers open, cap ${MAX_FILE_ASSEMBLIES}`);
        if (files.bufferedBytes < 0) throw new FuzzInvariantError(`buffered bytes went negative (${files.bufferedBytes})`);
        return { accepted: true };
      },
      show: (input) => concatBytes(new Uint8Array(Buffer.from(`${input.kind}:`, 'latin1')), input.bytes),
      figures: () => {
        const c = files.counters;
        return { completed, chunks: c.chunks, refused: c.rejected, failedTransfers: c.failed, stale: c.stale, openAtEnd: files.size, bufferedAtEnd: files.bufferedBytes };
      },
    };
  },
};
