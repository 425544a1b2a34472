/**
 * Width and height from the first bytes of PNG, GIF, WebP and JPEG files, read from the headers each format puts
 * first (JPEG: the first start-of-frame marker, after walking the segments before it). JPEG's EXIF orientation is
 * applied: a photo shot in portrait is stored landscape with orientation 6, and browsers display it swapped, so the
 * fragment reports what the recipient will see.
 */
import type { ByteSource } from './byte-source';
import { hasAscii, u16be, u16le, u24le, u32be, u32le, u8 } from './read-int';
import { pixels, type MediaFacts } from './types';

function size(width: number | undefined, height: number | undefined): MediaFacts {
  const w = pixels(width);
  const h = pixels(height);
  return w !== undefined && h !== undefined ? { width: w, height: h } : {};
}

export async function probePng(src: ByteSource): Promise<MediaFacts> {
  const b = await src.read(0, 24);
  // Signature, then the IHDR chunk, which the format requires to come first.
  if (!hasAscii(b, 12, 'IHDR')) return {};
  return size(u32be(b, 16), u32be(b, 20));
}

export async function probeGif(src: ByteSource): Promise<MediaFacts> {
  const b = await src.read(0, 10);
  if (!hasAscii(b, 0, 'GIF87a') && !hasAscii(b, 0, 'GIF89a')) return {};
  return size(u16le(b, 6), u16le(b, 8));
}

export async function probeWebp(src: ByteSource): Promise<MediaFacts> {
  const b = await src.read(0, 30);
  if (!hasAscii(b, 0, 'RIFF') || !hasAscii(b, 8, 'WEBP')) return {};
  if (hasAscii(b, 12, 'VP8X')) {
    // Extended format: canvas size minus one, 24 bits each.
    const w = u24le(b, 24);
    const h = u24le(b, 27);
    return w === undefined || h === undefined ? {} : size(w + 1, h + 1);
  }
  if (hasAscii(b, 12, 'VP8L')) {
    // Lossless: signature 0x2f, then 14 bits of width-1 and 14 bits of height-1.
    if (u8(b, 20) !== 0x2f) return {};
    const bits = u32le(b, 21);
    if (bits === undefined) return {};
    return size((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (hasAscii(b, 12, 'VP8 ')) {
    // Lossy: a key frame's start code 9d 01 2a, then 14-bit width and height (the top two bits are scaling).
    if (u8(b, 23) !== 0x9d || u8(b, 24) !== 0x01 || u8(b, 25) !== 0x2a) return {};
    const w = u16le(b, 26);
    const h = u16le(b, 28);
    return w === undefined || h === undefined ? {} : size(w & 0x3fff, h & 0x3fff);
  }
  return {};
}

const JPEG_MAX_SEGMENTS = 512;
const JPEG_MAX_SCAN_BYTES = 16 << 20;

/** SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc), which share the range. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** EXIF orientation (TIFF tag 0x0112) from an APP1 payload, or undefined. */
function exifOrientation(app1: Uint8Array): number | undefined {
  if (!hasAscii(app1, 0, 'Exif\0\0')) return undefined;
  const tiff = app1.subarray(6);
  const little = hasAscii(tiff, 0, 'II');
  if (!little && !hasAscii(tiff, 0, 'MM')) return undefined;
  const r16 = little ? u16le : u16be;
  const r32 = little ? u32le : u32be;
  if (r16(tiff, 2) !== 42) return undefined;
  const ifd = r32(tiff, 4);
  if (ifd === undefined) return undefined;
  const count = r16(tiff, ifd);
  if (count === undefined) return undefined;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    const tag = r16(tiff, entry);
    if (tag === undefined) return undefined;
    if (tag === 0x0112) {
      const value = r16(tiff, entry + 8);
      return value !== undefined && value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}

export async function probeJpeg(src: ByteSource): Promise<MediaFacts> {
  const start = await src.read(0, 2);
  if (u8(start, 0) !== 0xff || u8(start, 1) !== 0xd8) return {};
  let offset = 2;
  let orientation: number | undefined;
  for (let n = 0; n < JPEG_MAX_SEGMENTS && offset < JPEG_MAX_SCAN_BYTES; n++) {
    const h = await src.read(offset, 10);
    if (u8(h, 0) !== 0xff) return {};
    const marker = u8(h, 1);
    // Fill bytes: any number of 0xff may precede a marker.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker === undefined) return {};
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return {}; // end of image, or the scan began without a frame header
    const length = u16be(h, 2);
    if (length === undefined || length < 2) return {};
    if (isStartOfFrame(marker)) {
      // precision(1), height(2), width(2); a height of 0 is defined later by a DNL marker, which is not cheap.
      const height = u16be(h, 5);
      const width = u16be(h, 7);
      const facts = size(width, height);
      if (facts.width !== undefined && orientation !== undefined && orientation >= 5) {
        return { width: facts.height, height: facts.width };
      }
      return facts;
    }
    if (marker === 0xe1 && orientation === undefined) {
      orientation = exifOrientation(await src.read(offset + 4, length - 2));
    }
    offset += 2 + length;
  }
  return {};
}
