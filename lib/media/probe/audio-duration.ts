/**
 * Durations that audio containers state in their headers: WAV and RF64 (data length over byte rate), FLAC
 * (STREAMINFO's sample count over its rate), Ogg Opus and Vorbis (the last page's granule position, found in the
 * file's tail) and MP3 (a Xing/Info or VBRI frame count, else the constant bit rate over the file's length).
 * No audio is decoded; a header that does not say is "not known".
 */
import type { ByteSource } from './byte-source';
import { hasAscii, u16le, u32be, u32le, u64le, u8 } from './read-int';
import { millis, type MediaFacts } from './types';

const MAX_RIFF_CHUNKS = 256;

function duration(ms: number | undefined): MediaFacts {
  return ms === undefined ? {} : { duration: ms };
}

/** WAV: walk the chunks for `fmt ` (byte rate) and `data` (length); RF64 keeps the 64-bit length in `ds64`. */
export async function probeWav(src: ByteSource): Promise<MediaFacts> {
  const riff = await src.read(0, 12);
  const rf64 = hasAscii(riff, 0, 'RF64');
  if ((!hasAscii(riff, 0, 'RIFF') && !rf64) || !hasAscii(riff, 8, 'WAVE')) return {};
  let at = 12;
  let byteRate: number | undefined;
  let dataBytes64: number | undefined;
  for (let n = 0; n < MAX_RIFF_CHUNKS; n++) {
    const h = await src.read(at, 8 + 28);
    const id = h.length >= 4 ? String.fromCharCode(h[0], h[1], h[2], h[3]) : undefined;
    const length = u32le(h, 4);
    if (id === undefined || length === undefined) return {};
    if (id === 'ds64') dataBytes64 = u64le(h, 16);
    else if (id === 'fmt ') byteRate = u32le(h, 16);
    else if (id === 'data') {
      let bytes = rf64 && length === 0xffffffff ? dataBytes64 : length;
      const available = src.size === undefined ? undefined : src.size - (at + 8);
      // A recorder that never went back to fill in the length writes 0 or all ones; the file's size says.
      if ((bytes === 0 || bytes === 0xffffffff || bytes === undefined) && available !== undefined) bytes = available;
      if (bytes !== undefined && available !== undefined) bytes = Math.min(bytes, available);
      return duration(millis(bytes, byteRate));
    }
    at += 8 + length + (length & 1);
  }
  return {};
}

/** FLAC: the mandatory first metadata block, STREAMINFO, packs a 20-bit rate and a 36-bit sample count. */
export async function probeFlac(src: ByteSource): Promise<MediaFacts> {
  const b = await src.read(0, 42);
  if (!hasAscii(b, 0, 'fLaC') || ((u8(b, 4) ?? 0xff) & 0x7f) !== 0) return {};
  // Block body starts at 8: min/max block (2+2), min/max frame (3+3), then the packed 64 bits at 18.
  const hi = u32be(b, 18);
  const lo = u32be(b, 22);
  if (hi === undefined || lo === undefined) return {};
  const rate = hi >>> 12;
  const samples = (hi & 0x0f) * 0x100000000 + lo;
  return duration(samples === 0 ? undefined : millis(samples, rate));
}

const OGG_TAIL_BYTES = 64 * 1024;

/** An Ogg page header at `o`: version 0, and the stream's serial number. */
function oggPage(b: Uint8Array, o: number): { granule: number | undefined; serial: number | undefined } | undefined {
  if (!hasAscii(b, o, 'OggS') || u8(b, o + 4) !== 0) return undefined;
  const lo = u32le(b, o + 6);
  const hi = u32le(b, o + 10);
  // All ones: no packet ends on this page.
  const granule = lo === undefined || hi === undefined || (lo === 0xffffffff && hi === 0xffffffff) ? undefined : u64le(b, o + 6);
  return { granule, serial: u32le(b, o + 14) };
}

/**
 * Ogg: the identification header on the first page gives the rate (Opus always counts at 48 kHz and skips
 * `pre_skip` samples), and the last page of the same stream gives the end position.
 */
export async function probeOgg(src: ByteSource): Promise<MediaFacts> {
  if (src.size === undefined) return {};
  const head = await src.read(0, 27 + 255 + 30);
  const first = oggPage(head, 0);
  const segments = u8(head, 26);
  if (!first || segments === undefined) return {};
  const packet = 27 + segments;
  let rate: number | undefined;
  let skip = 0;
  if (hasAscii(head, packet, 'OpusHead')) {
    rate = 48000;
    skip = u16le(head, packet + 10) ?? 0;
  } else if (u8(head, packet) === 1 && hasAscii(head, packet + 1, 'vorbis')) {
    rate = u32le(head, packet + 12);
  } else {
    return {};
  }
  const tailStart = Math.max(0, src.size - OGG_TAIL_BYTES);
  const tail = await src.read(tailStart, OGG_TAIL_BYTES);
  for (let o = tail.length - 27; o >= 0; o--) {
    if (tail[o] !== 0x4f) continue; // 'O'
    const page = oggPage(tail, o);
    if (page && page.serial === first.serial && page.granule !== undefined) return duration(millis(page.granule - skip, rate));
  }
  return {};
}

const MP3_BITRATES_KBPS: Readonly<Record<string, readonly number[]>> = {
  // Indexed by the 4-bit bitrate field; 0 is "free format", 15 is invalid.
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MP3_RATES_HZ: Readonly<Record<number, readonly number[]>> = {
  1: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  25: [11025, 12000, 8000],
};

interface Mp3Frame {
  version: 1 | 2 | 25;
  layer: 1 | 2 | 3;
  bitrateKbps: number;
  rate: number;
  mono: boolean;
}

export function readMp3FrameHeader(b: Uint8Array, o: number): Mp3Frame | undefined {
  const h = u32be(b, o);
  if (h === undefined || (h >>> 21) !== 0x7ff) return undefined;
  const versionBits = (h >>> 19) & 3;
  const layerBits = (h >>> 17) & 3;
  const bitrateIndex = (h >>> 12) & 15;
  const rateIndex = (h >>> 10) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 25;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const table = MP3_BITRATES_KBPS[`${version === 1 ? 1 : 2}-${layer}`];
  return { version, layer, bitrateKbps: table[bitrateIndex], rate: MP3_RATES_HZ[version][rateIndex], mono: ((h >>> 6) & 3) === 3 };
}

function samplesPerFrame(f: Mp3Frame): number {
  if (f.layer === 1) return 384;
  if (f.layer === 2) return 1152;
  return f.version === 1 ? 1152 : 576;
}

/** Size of an ID3v2 tag at the start (syncsafe length, plus the optional footer), or 0. */
function id3v2Length(b: Uint8Array): number {
  if (!hasAscii(b, 0, 'ID3') || b.length < 10) return 0;
  const flags = b[5];
  const len = ((b[6] & 0x7f) << 21) | ((b[7] & 0x7f) << 14) | ((b[8] & 0x7f) << 7) | (b[9] & 0x7f);
  return 10 + len + (flags & 0x10 ? 10 : 0);
}

export async function probeMp3(src: ByteSource): Promise<MediaFacts> {
  const start = id3v2Length(await src.read(0, 10));
  const b = await src.read(start, 4096);
  // Some encoders pad between the tag and the first frame; look a little way for the sync.
  let at = -1;
  for (let o = 0; o + 4 <= b.length && o < 2048; o++) {
    if (b[o] === 0xff && readMp3FrameHeader(b, o)) {
      at = o;
      break;
    }
  }
  if (at < 0) return {};
  const frame = readMp3FrameHeader(b, at) as Mp3Frame;
  const sideInfo = frame.version === 1 ? (frame.mono ? 17 : 32) : frame.mono ? 9 : 17;
  const xing = at + 4 + sideInfo;
  if (hasAscii(b, xing, 'Xing') || hasAscii(b, xing, 'Info')) {
    const flags = u32be(b, xing + 4);
    if (flags !== undefined && (flags & 1) !== 0) return duration(millis((u32be(b, xing + 8) ?? 0) * samplesPerFrame(frame), frame.rate));
  }
  if (hasAscii(b, at + 36, 'VBRI')) return duration(millis((u32be(b, at + 36 + 14) ?? 0) * samplesPerFrame(frame), frame.rate));
  if (src.size === undefined || frame.bitrateKbps === 0) return {};
  // Constant bit rate: the audio's length in bits over the rate; an ID3v1 tag takes the last 128 bytes.
  const trailer = hasAscii(await src.read(src.size - 128, 3), 0, 'TAG') ? 128 : 0;
  const audioBytes = src.size - start - at - trailer;
  return duration(millis(audioBytes * 8, frame.bitrateKbps * 1000));
}

/** MPEG audio: an ID3v2 tag, or a frame header (with a real bit rate) at the very start; also used by the sniffer. */
export function looksLikeMp3(b: Uint8Array): boolean {
  if (hasAscii(b, 0, 'ID3')) return true;
  const frame = readMp3FrameHeader(b, 0);
  return frame !== undefined && frame.bitrateKbps > 0;
}
