import assert from 'node:assert/strict';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { bufferSource, fileSource, probeMedia, sniffMime, type ByteSource } from '../../../lib/media';
import * as fx from './fixtures';

/** What the probes see of a stream: its first bytes only, length unknown. */
function headOnly(bytes: Buffer, keep: number): ByteSource {
  const head = bytes.subarray(0, keep);
  return { size: undefined, read: (o, n) => bufferSource(head).read(o, n) };
}

async function probe(bytes: Buffer): Promise<Record<string, number | undefined>> {
  return { ...(await probeMedia(bufferSource(bytes), sniffMime(bytes))) };
}

describe('probeMedia', () => {
  describe('image sizes', () => {
    it('reads PNG width and height from IHDR', async () => {
      assert.deepEqual(await probe(fx.png(33, 17)), { width: 33, height: 17 });
    });

    it('reads GIF logical screen size', async () => {
      assert.deepEqual(await probe(fx.gif(5, 3)), { width: 5, height: 3 });
    });

    it('reads JPEG size from the frame header, past other segments', async () => {
      assert.deepEqual(await probe(fx.jpeg(40, 24)), { width: 40, height: 24 });
      assert.deepEqual(await probe(fx.jpeg(1920, 1080, { paddingSegmentBytes: 60000 })), { width: 1920, height: 1080 });
      assert.deepEqual(await probe(fx.jpeg(800, 600, { sofMarker: 0xc2 })), { width: 800, height: 600 });
    });

    it('applies the EXIF orientation: 6 and 8 swap, 1 and 3 do not', async () => {
      assert.deepEqual(await probe(fx.jpeg(40, 24, { orientation: 6 })), { width: 24, height: 40 });
      assert.deepEqual(await probe(fx.jpeg(40, 24, { orientation: 8 })), { width: 24, height: 40 });
      assert.deepEqual(await probe(fx.jpeg(40, 24, { orientation: 3 })), { width: 40, height: 24 });
      assert.deepEqual(await probe(fx.jpeg(40, 24, { orientation: 1 })), { width: 40, height: 24 });
    });

    it('reads the three WebP variants (lossy, lossless, extended)', async () => {
      assert.deepEqual(await probe(fx.webpLossy(64, 48)), { width: 64, height: 48 });
      assert.deepEqual(await probe(fx.webpLossless(1000, 16383)), { width: 1000, height: 16383 });
      assert.deepEqual(await probe(fx.webpExtended(5000, 3000)), { width: 5000, height: 3000 });
    });
  });

  describe('durations', () => {
    it('WAV: data length over byte rate, past a LIST chunk', async () => {
      assert.deepEqual(await probe(fx.wav(1500)), { duration: 1500 });
      assert.deepEqual(await probe(fx.wav(250, 44100, 2, { listChunk: true })), { duration: 250 });
    });

    it('WAV with an unset data length takes the length from the file size', async () => {
      assert.deepEqual(await probe(fx.wav(700, 16000, 1, { unsetDataSize: true })), { duration: 700 });
    });

    it('MP4: mvhd duration and the video track size', async () => {
      assert.deepEqual(await probe(fx.mp4({ durationMs: 2500, width: 320, height: 240 })), { duration: 2500, width: 320, height: 240 });
      assert.deepEqual(await probe(fx.mp4({ durationMs: 61_000, timescale: 90000, width: 1920, height: 1080, version1: true })), {
        duration: 61_000,
        width: 1920,
        height: 1080,
      });
    });

    it('MP4: a quarter-turn track matrix swaps the size (phone filming upright)', async () => {
      assert.deepEqual(await probe(fx.mp4({ durationMs: 1000, width: 1920, height: 1080, rotate90: true })), {
        duration: 1000,
        width: 1080,
        height: 1920,
      });
    });

    it('MP4: moov after a large mdat is found by box headers alone', async () => {
      const file = fx.mp4({ durationMs: 4321, width: 640, height: 480, moovAtEnd: true, mdatBytes: 3 << 20 });
      assert.deepEqual(await probe(file), { duration: 4321, width: 640, height: 480 });
    });

    it('MP4: fragmented files take the duration from mvex/mehd', async () => {
      assert.deepEqual(await probe(fx.mp4({ durationMs: 9000, width: 320, height: 180, fragmented: true })), {
        duration: 9000,
        width: 320,
        height: 180,
      });
    });

    it('M4A and MOV: audio-only and QuickTime-branded files', async () => {
      assert.deepEqual(await probe(fx.mp4({ durationMs: 2500 })), { duration: 2500 });
      assert.deepEqual(await probe(fx.mp4({ durationMs: 800, width: 16, height: 16, brand: 'qt  ' })), { duration: 800, width: 16, height: 16 });
    });

    it('Ogg Opus: last granule minus pre-skip at 48 kHz', async () => {
      assert.deepEqual(await probe(fx.oggOpus(3000)), { duration: 3000 });
      assert.deepEqual(await probe(fx.oggOpus(12_345, { preSkip: 3840, audioPages: 10 })), { duration: 12_345 });
    });

    it('Ogg Opus: the last page is found in the tail of a long file', async () => {
      assert.deepEqual(await probe(fx.oggOpus(600_000, { audioPages: 60, pagePadding: 4000 })), { duration: 600_000 });
    });

    it('Ogg Vorbis: last granule over the identification rate', async () => {
      assert.deepEqual(await probe(fx.oggVorbis(2000, 44100)), { duration: 2000 });
    });

    it('FLAC: STREAMINFO samples over rate', async () => {
      assert.deepEqual(await probe(fx.flac(1234)), { duration: 1234 });
    });

    it('MP3: Xing frame count after an ID3v2 tag, else constant bit rate over length', async () => {
      assert.deepEqual(await probe(fx.mp3Xing(100, { id3Bytes: 300 })), { duration: fx.mp3DurationMs(100) });
      assert.deepEqual(await probe(fx.mp3Cbr(200)), { duration: fx.mp3DurationMs(200) });
    });

    it('WebM: Info/Duration with its timestamp scale, and the video track size (not the audio track)', async () => {
      assert.deepEqual(await probe(fx.webm({ durationMs: 4200, width: 640, height: 360 })), { duration: 4200, width: 640, height: 360 });
      assert.deepEqual(await probe(fx.webm({ durationMs: 1500, width: 32, height: 24, timestampScale: 1000, docType: 'matroska' })), {
        duration: 1500,
        width: 32,
        height: 24,
      });
    });

    it('WebM without a duration (a live recording) gives the size only', async () => {
      assert.deepEqual(await probe(fx.webm({ width: 640, height: 360 })), { width: 640, height: 360 });
    });
  });

  describe('partial sources', () => {
    it('a stream head is enough for headers at the start', async () => {
      const file = fx.mp4({ durationMs: 5000, width: 640, height: 360, mdatBytes: 1 << 20 });
      assert.deepEqual({ ...(await probeMedia(headOnly(file, 4096), 'video/mp4')) }, { duration: 5000, width: 640, height: 360 });
    });

    it('a stream head that does not reach the headers gives nothing, not a guess', async () => {
      const file = fx.mp4({ durationMs: 5000, width: 640, height: 360, moovAtEnd: true, mdatBytes: 1 << 20 });
      assert.deepEqual({ ...(await probeMedia(headOnly(file, 4096), 'video/mp4')) }, {});
      assert.deepEqual({ ...(await probeMedia(headOnly(fx.oggOpus(3000), 4096), 'audio/ogg')) }, {});
    });

    it('reads a file on disk by position', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'media-probe-'));
      try {
        const file = path.join(dir, 'clip.mp4');
        await writeFile(file, fx.mp4({ durationMs: 777, width: 48, height: 32, moovAtEnd: true, mdatBytes: 2 << 20 }));
        const handle = await open(file, 'r');
        try {
          const stat = await handle.stat();
          assert.deepEqual({ ...(await probeMedia(fileSource(handle, stat.size), 'video/mp4')) }, { duration: 777, width: 48, height: 32 });
        } finally {
          await handle.close();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('hostile input', () => {
    it('truncated headers give nothing at every cut', async () => {
      const files: [string, Buffer][] = [
        ['image/png', fx.png(10, 10)],
        ['image/jpeg', fx.jpeg(10, 10, { orientation: 6 })],
        ['image/gif', fx.gif(2, 2)],
        ['image/webp', fx.webpExtended(9, 9)],
        ['audio/wav', fx.wav(100)],
        ['video/mp4', fx.mp4({ durationMs: 100, width: 8, height: 8 })],
        ['audio/ogg', fx.oggOpus(100)],
        ['audio/flac', fx.flac(100)],
        ['audio/mpeg', fx.mp3Xing(10)],
        ['video/webm', fx.webm({ durationMs: 100, width: 8, height: 8 })],
      ];
      for (const [mime, file] of files) {
        for (let cut = 0; cut < Math.min(file.length, 400); cut++) {
          const facts = await probeMedia(bufferSource(file.subarray(0, cut)), mime);
          for (const v of Object.values(facts)) assert.ok(Number.isInteger(v) && (v as number) > 0, `${mime} cut at ${cut}: ${JSON.stringify(facts)}`);
        }
      }
    });

    it('never throws and only reports positive whole numbers, whatever the bytes', async () => {
      const mimes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'audio/wav', 'audio/flac', 'audio/ogg', 'audio/mpeg', 'video/mp4', 'video/webm'];
      const prefixes = [fx.png(1, 1), fx.jpeg(8, 8), fx.gif(1, 1), fx.webpLossy(1, 1), fx.wav(10), fx.flac(10), fx.oggOpus(10), fx.mp3Xing(1), fx.mp4({ durationMs: 1 }), fx.webm({ width: 1, height: 1 })];
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: mimes.length - 1 }), fc.uint8Array({ maxLength: 300 }), fc.nat(64), async (i, noise, keep) => {
          const bytes = Buffer.concat([prefixes[i].subarray(0, keep), noise]);
          const facts = await probeMedia(bufferSource(bytes), mimes[i]);
          for (const v of Object.values(facts)) assert.ok(Number.isInteger(v) && (v as number) > 0);
        }),
        { numRuns: 400 },
      );
    });

    it('a box or segment length pointing far beyond the file ends the walk', async () => {
      const lying = Buffer.concat([fx.mp4({ durationMs: 1 }).subarray(0, 24), Buffer.from([0x7f, 0xff, 0xff, 0xff, 0x6d, 0x6f, 0x6f, 0x76])]);
      assert.deepEqual({ ...(await probeMedia(bufferSource(lying), 'video/mp4')) }, {});
      const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff, 0x45, 0x78]);
      assert.deepEqual({ ...(await probeMedia(bufferSource(jpeg), 'image/jpeg')) }, {});
    });

    it('an unknown or missing type is not probed', async () => {
      assert.deepEqual({ ...(await probeMedia(bufferSource(fx.PDF), 'application/pdf')) }, {});
      assert.deepEqual({ ...(await probeMedia(bufferSource(fx.png(2, 2)), undefined)) }, {});
    });
  });
});
