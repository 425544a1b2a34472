/**
 * Small media files written byte by byte, for the probes, the sniffer and uploads. Each builder follows its format's
 * specification: the PNG, GIF, JPEG and WAV ones decode in ordinary viewers and players; the MP4, WebM, Ogg, FLAC,
 * MP3 and WebP ones carry complete, valid headers around placeholder media data.
 */
import { crc32, deflateSync } from 'node:zlib';

const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');

function u16be(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
function u32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
function u16le(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
function u64be(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}
function u64le(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}

// ---------------------------------------------------------------- PNG

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([ascii(type), data]);
  return Buffer.concat([u32be(data.length), body, u32be(crc32(body))]);
}

/** A grey 8-bit greyscale PNG that any decoder reads. */
export function png(width: number, height: number): Buffer {
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 0, 0, 0, 0])]);
  const raw = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0; // filter type None per scanline
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---------------------------------------------------------------- GIF

/** A GIF87a/89a of colour 0 everywhere; the LZW stream clears every two codes so codes stay 3 bits wide. */
export function gif(width: number, height: number): Buffer {
  const codes: number[] = [];
  const pixels = width * height;
  for (let i = 0; i < pixels; i++) {
    if (i % 2 === 0) codes.push(4); // clear
    codes.push(0);
  }
  codes.push(5); // end of information
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const code of codes) {
    acc |= code << bits;
    bits += 3;
    while (bits >= 8) {
      bytes.push(acc & 0xff);
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) bytes.push(acc & 0xff);
  const blocks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 255) {
    const part = bytes.slice(at, at + 255);
    blocks.push(Buffer.from([part.length, ...part]));
  }
  return Buffer.concat([
    ascii('GIF89a'),
    u16le(width),
    u16le(height),
    Buffer.from([0x80, 0, 0]), // global colour table of 2 entries
    Buffer.from([0, 0, 0, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c]),
    u16le(0),
    u16le(0),
    u16le(width),
    u16le(height),
    Buffer.from([0]),
    Buffer.from([2]), // LZW minimum code size
    ...blocks,
    Buffer.from([0]),
    Buffer.from([0x3b]),
  ]);
}

// ---------------------------------------------------------------- JPEG

function segment(marker: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0xff, marker]), u16be(body.length + 2), body]);
}

function exifApp1(orientation: number): Buffer {
  // Big-endian TIFF with one IFD0 entry: Orientation (0x0112), SHORT, count 1.
  const tiff = Buffer.concat([
    ascii('MM'),
    u16be(42),
    u32be(8),
    u16be(1),
    u16be(0x0112),
    u16be(3),
    u32be(1),
    u16be(orientation),
    u16be(0),
    u32be(0),
  ]);
  return segment(0xe1, Buffer.concat([ascii('Exif\0\0'), tiff]));
}

export interface JpegOptions {
  orientation?: number;
  /** Bytes of an APP2 segment before the frame header, to push SOF past the first reads. */
  paddingSegmentBytes?: number;
  /** 0xc2 for progressive. */
  sofMarker?: number;
}

/**
 * A mid-grey baseline greyscale JPEG: a single-code DC table (category 0) and AC table (EOB), so every 8×8 block is
 * two bits.
 */
export function jpeg(width: number, height: number, options: JpegOptions = {}): Buffer {
  const parts: Buffer[] = [Buffer.from([0xff, 0xd8])];
  parts.push(segment(0xe0, Buffer.concat([ascii('JFIF\0'), Buffer.from([1, 1, 0]), u16be(1), u16be(1), Buffer.from([0, 0])])));
  if (options.orientation !== undefined) parts.push(exifApp1(options.orientation));
  if (options.paddingSegmentBytes) parts.push(segment(0xe2, Buffer.alloc(options.paddingSegmentBytes, 0x20)));
  parts.push(segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])));
  parts.push(segment(options.sofMarker ?? 0xc0, Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])])));
  const table = (cls: number, symbol: number): Buffer => {
    const counts = Buffer.alloc(16);
    counts[0] = 1;
    return Buffer.concat([Buffer.from([cls << 4]), counts, Buffer.from([symbol])]);
  };
  parts.push(segment(0xc4, Buffer.concat([table(0, 0), table(1, 0)])));
  parts.push(segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])));
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const scan = Buffer.alloc(Math.ceil((blocks * 2) / 8), 0);
  const usedBits = blocks * 2;
  // Pad the last byte with one bits, as the format requires.
  if (usedBits % 8 !== 0) scan[scan.length - 1] = (1 << (8 - (usedBits % 8))) - 1;
  parts.push(scan, Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------- WebP

export function webpLossy(width: number, height: number): Buffer {
  const frame = Buffer.concat([Buffer.from([0x10, 0x02, 0x00]), Buffer.from([0x9d, 0x01, 0x2a]), u16le(width), u16le(height), Buffer.alloc(8)]);
  const chunk = Buffer.concat([ascii('VP8 '), u32le(frame.length), frame]);
  return Buffer.concat([ascii('RIFF'), u32le(4 + chunk.length), ascii('WEBP'), chunk]);
}

export function webpLossless(width: number, height: number): Buffer {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  const data = Buffer.concat([Buffer.from([0x2f]), u32le(bits), Buffer.alloc(7)]);
  const chunk = Buffer.concat([ascii('VP8L'), u32le(data.length), data]);
  return Buffer.concat([ascii('RIFF'), u32le(4 + chunk.length), ascii('WEBP'), chunk]);
}

export function webpExtended(width: number, height: number): Buffer {
  const canvas = Buffer.alloc(10);
  canvas[0] = 0x10; // alpha flag
  canvas.writeUIntLE(width - 1, 4, 3);
  canvas.writeUIntLE(height - 1, 7, 3);
  const vp8x = Buffer.concat([ascii('VP8X'), u32le(10), canvas]);
  const inner = webpLossy(width, height).subarray(12);
  return Buffer.concat([ascii('RIFF'), u32le(4 + vp8x.length + inner.length), ascii('WEBP'), vp8x, inner]);
}

// ---------------------------------------------------------------- WAV

/** 16-bit PCM of `durationMs` at `rate` Hz: a 440 Hz tone, playable. */
export function wav(durationMs: number, rate = 8000, channels = 1, options: { listChunk?: boolean; unsetDataSize?: boolean } = {}): Buffer {
  const frames = Math.round((rate * durationMs) / 1000);
  const data = Buffer.alloc(frames * channels * 2);
  for (let i = 0; i < frames; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000);
    for (let c = 0; c < channels; c++) data.writeInt16LE(v, (i * channels + c) * 2);
  }
  const fmt = Buffer.concat([u16le(1), u16le(channels), u32le(rate), u32le(rate * channels * 2), u16le(channels * 2), u16le(16)]);
  const chunks = [Buffer.concat([ascii('fmt '), u32le(fmt.length), fmt])];
  if (options.listChunk) {
    const info = Buffer.concat([ascii('INFO'), ascii('INAM'), u32le(5), ascii('tone\0'), Buffer.from([0])]);
    chunks.push(Buffer.concat([ascii('LIST'), u32le(info.length), info]));
  }
  chunks.push(Buffer.concat([ascii('data'), u32le(options.unsetDataSize ? 0xffffffff : data.length), data]));
  const body = Buffer.concat(chunks);
  return Buffer.concat([ascii('RIFF'), u32le(4 + body.length), ascii('WAVE'), body]);
}

// ---------------------------------------------------------------- ISO BMFF (MP4 / MOV / M4A)

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32be(8 + body.length), ascii(type), body]);
}

function fullBox(type: string, version: number, ...payload: Buffer[]): Buffer {
  return box(type, Buffer.from([version, 0, 0, 0]), ...payload);
}

const IDENTITY = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];
const ROTATE_90 = [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000];

function matrix(values: number[]): Buffer {
  const b = Buffer.alloc(36);
  values.forEach((v, i) => b.writeInt32BE(v, i * 4));
  return b;
}

export interface Mp4Options {
  durationMs: number;
  timescale?: number;
  /** Omit for an audio-only file (an `soun` track). */
  width?: number;
  height?: number;
  rotate90?: boolean;
  /** `moov` after a large `mdat`, as cameras write it. */
  moovAtEnd?: boolean;
  mdatBytes?: number;
  /** 64-bit times in `mvhd` and `tkhd`. */
  version1?: boolean;
  /** A fragmented file: `mvhd` duration 0 and the length in `mvex/mehd`. */
  fragmented?: boolean;
  brand?: string;
}

export function mp4(options: Mp4Options): Buffer {
  const timescale = options.timescale ?? 1000;
  const units = Math.round((options.durationMs * timescale) / 1000);
  const v1 = options.version1 === true;
  const mvhdDuration = options.fragmented ? 0 : units;
  const times = v1 ? Buffer.concat([u64be(0), u64be(0)]) : Buffer.concat([u32be(0), u32be(0)]);
  const mvhd = fullBox(
    'mvhd',
    v1 ? 1 : 0,
    times,
    u32be(timescale),
    v1 ? u64be(mvhdDuration) : u32be(mvhdDuration),
    u32be(0x10000),
    u16be(0x100),
    Buffer.alloc(10),
    matrix(IDENTITY),
    Buffer.alloc(24),
    u32be(2),
  );
  const video = options.width !== undefined && options.height !== undefined;
  const tkhd = fullBox(
    'tkhd',
    v1 ? 1 : 0,
    times,
    u32be(1),
    u32be(0),
    v1 ? u64be(units) : u32be(units),
    Buffer.alloc(8),
    u16be(0),
    u16be(0),
    u16be(video ? 0 : 0x100),
    u16be(0),
    matrix(options.rotate90 ? ROTATE_90 : IDENTITY),
    u32be((options.width ?? 0) * 0x10000),
    u32be((options.height ?? 0) * 0x10000),
  );
  const mdhd = fullBox('mdhd', 0, u32be(0), u32be(0), u32be(timescale), u32be(units), u16be(0x55c4), u16be(0));
  const hdlr = fullBox('hdlr', 0, u32be(0), ascii(video ? 'vide' : 'soun'), Buffer.alloc(12), ascii(video ? 'Video\0' : 'Sound\0'));
  const trak = box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf')));
  const moovParts = [mvhd, trak];
  if (options.fragmented) moovParts.push(box('mvex', fullBox('mehd', 0, u32be(units))));
  const moov = box('moov', ...moovParts);
  const brand = options.brand ?? (video ? 'isom' : 'M4A ');
  const ftyp = box('ftyp', ascii(brand), u32be(0x200), ascii(brand), ascii('mp41'));
  const mdat = box('mdat', Buffer.alloc(options.mdatBytes ?? 64, 0x11));
  return Buffer.concat(options.moovAtEnd ? [ftyp, mdat, moov] : [ftyp, moov, mdat]);
}

// ---------------------------------------------------------------- Ogg (Opus, Vorbis)

const OGG_CRC = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function oggCrc(bytes: Buffer): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ OGG_CRC[((crc >>> 24) ^ b) & 0xff]) >>> 0;
  return crc;
}

function oggPage(packet: Buffer, granule: bigint, serial: number, sequence: number, headerType: number): Buffer {
  const lacing: number[] = [];
  let left = packet.length;
  while (left >= 255) {
    lacing.push(255);
    left -= 255;
  }
  lacing.push(left);
  const header = Buffer.concat([
    ascii('OggS'),
    Buffer.from([0, headerType]),
    u64le(granule),
    u32le(serial),
    u32le(sequence),
    u32le(0),
    Buffer.from([lacing.length, ...lacing]),
  ]);
  const page = Buffer.concat([header, packet]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

/** Ogg Opus: OpusHead, OpusTags, then audio pages whose last granule marks `durationMs` after the pre-skip. */
export function oggOpus(durationMs: number, options: { preSkip?: number; audioPages?: number; pagePadding?: number } = {}): Buffer {
  const preSkip = options.preSkip ?? 312;
  const serial = 0x1234abcd;
  const head = Buffer.concat([ascii('OpusHead'), Buffer.from([1, 2]), u16le(preSkip), u32le(48000), u16le(0), Buffer.from([0])]);
  const tags = Buffer.concat([ascii('OpusTags'), u32le(8), ascii('clawling'), u32le(0)]);
  const pages = [oggPage(head, 0n, serial, 0, 0x02), oggPage(tags, 0n, serial, 1, 0)];
  const total = BigInt(preSkip + Math.round(durationMs * 48));
  const count = options.audioPages ?? 3;
  for (let i = 1; i <= count; i++) {
    const granule = (total * BigInt(i)) / BigInt(count);
    pages.push(oggPage(Buffer.alloc(options.pagePadding ?? 40, 0xf8), granule, serial, 1 + i, i === count ? 0x04 : 0));
  }
  return Buffer.concat(pages);
}

export function oggVorbis(durationMs: number, rate = 44100): Buffer {
  const serial = 7;
  const ident = Buffer.concat([Buffer.from([1]), ascii('vorbis'), u32le(0), Buffer.from([2]), u32le(rate), u32le(0), u32le(128000), u32le(0), Buffer.from([0xb8, 1])]);
  const samples = BigInt(Math.round((durationMs * rate) / 1000));
  return Buffer.concat([oggPage(ident, 0n, serial, 0, 0x02), oggPage(Buffer.alloc(30, 1), samples, serial, 1, 0x04)]);
}

// ---------------------------------------------------------------- FLAC

export function flac(durationMs: number, rate = 44100): Buffer {
  const samples = Math.round((durationMs * rate) / 1000);
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0);
  info.writeUInt16BE(4096, 2);
  // sample rate (20) | channels-1 (3) | bits-1 (5) | total samples (36)
  const packed = (BigInt(rate) << 44n) | (1n << 41n) | (15n << 36n) | BigInt(samples);
  info.writeBigUInt64BE(packed, 10);
  return Buffer.concat([ascii('fLaC'), Buffer.from([0x80, 0, 0, 34]), info, Buffer.alloc(16, 0xff)]);
}

// ---------------------------------------------------------------- MP3

function id3v2(bodyBytes: number): Buffer {
  const size = Buffer.from([(bodyBytes >> 21) & 0x7f, (bodyBytes >> 14) & 0x7f, (bodyBytes >> 7) & 0x7f, bodyBytes & 0x7f]);
  return Buffer.concat([ascii('ID3'), Buffer.from([4, 0, 0]), size, Buffer.alloc(bodyBytes)]);
}

/** MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, stereo: 1152 samples in 417 or 418 bytes. */
const MP3_FRAME_HEADER = Buffer.from([0xff, 0xfb, 0x90, 0x00]);
const MP3_FRAME_EXACT_BYTES = (144 * 128000) / 44100;

/** `count` audio frames, padded (one more byte, the header's padding bit) as an encoder does to keep the exact rate. */
function mp3Frames(count: number): Buffer {
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const padded = Math.floor((i + 1) * MP3_FRAME_EXACT_BYTES) - Math.floor(i * MP3_FRAME_EXACT_BYTES) === 418;
    const frame = Buffer.alloc(padded ? 418 : 417);
    MP3_FRAME_HEADER.copy(frame, 0);
    if (padded) frame[2] |= 0x02;
    frames.push(frame);
  }
  return Buffer.concat(frames);
}

/** A VBR-style file whose first frame is a Xing header counting `frames` frames. */
export function mp3Xing(frames: number, options: { id3Bytes?: number } = {}): Buffer {
  const first = Buffer.alloc(417);
  MP3_FRAME_HEADER.copy(first, 0);
  first.write('Xing', 4 + 32, 'latin1');
  first.writeUInt32BE(1, 4 + 32 + 4);
  first.writeUInt32BE(frames, 4 + 32 + 8);
  return Buffer.concat([options.id3Bytes ? id3v2(options.id3Bytes) : Buffer.alloc(0), first, mp3Frames(4)]);
}

/** A constant-bit-rate file of `frames` frames and no Xing header, with an ID3v1 tag at the end. */
export function mp3Cbr(frames: number): Buffer {
  const tag = Buffer.concat([ascii('TAG'), Buffer.alloc(125)]);
  return Buffer.concat([mp3Frames(frames), tag]);
}

/** MPEG-1 Layer III frames of 1152 samples at 44.1 kHz: the duration a frame count stands for. */
export function mp3DurationMs(frames: number): number {
  return Math.round((frames * 1152 * 1000) / 44100);
}

// ---------------------------------------------------------------- Matroska / WebM

function ebmlSize(n: number): Buffer {
  // Always 8 bytes: 0x01 marker then 56 bits.
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n) | (1n << 56n));
  return b;
}

function el(id: number, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const idBytes = Buffer.from(id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, '0'), 'hex');
  return Buffer.concat([idBytes, ebmlSize(body.length), body]);
}

function uintBytes(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function f64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(n);
  return b;
}

export function webm(options: { durationMs?: number; width: number; height: number; docType?: string; timestampScale?: number }): Buffer {
  const scale = options.timestampScale ?? 1_000_000;
  const ebml = el(0x1a45dfa3, el(0x4286, uintBytes(1)), el(0x4282, ascii(options.docType ?? 'webm')), el(0x4287, uintBytes(4)));
  const info = el(
    0x1549a966,
    el(0x2ad7b1, uintBytes(scale)),
    ...(options.durationMs === undefined ? [] : [el(0x4489, f64((options.durationMs * 1_000_000) / scale))]),
    el(0x4d80, ascii('clawling')),
  );
  const audioTrack = el(0xae, el(0xd7, uintBytes(1)), el(0x83, uintBytes(2)), el(0x86, ascii('A_OPUS')));
  const videoTrack = el(
    0xae,
    el(0xd7, uintBytes(2)),
    el(0x83, uintBytes(1)),
    el(0x86, ascii('V_VP9')),
    el(0xe0, el(0xb0, uintBytes(options.width)), el(0xba, uintBytes(options.height))),
  );
  const tracks = el(0x1654ae6b, audioTrack, videoTrack);
  const cluster = el(0x1f43b675, el(0xe7, uintBytes(0)));
  return Buffer.concat([ebml, el(0x18538067, info, tracks, cluster)]);
}

// ---------------------------------------------------------------- other signatures

export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');
/** The start of a Windows executable: what §15.5 says the hub would store as `image/png` if declared so. */
export const EXE = Buffer.concat([ascii('MZ'), Buffer.alloc(58), u32le(64), ascii('PE\0\0'), Buffer.alloc(64)]);
export const HTML = Buffer.from('<!DOCTYPE html>\n<html><body>not an image</body></html>\n', 'utf8');
