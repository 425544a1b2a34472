/**
 * Duration and video size from ISO base media files (MP4, MOV, M4A, 3GP), read from the box tree without touching
 * the media data: `moov/mvhd` holds the duration and its timescale (`moov/mvex/mehd` for a fragmented file whose
 * `mvhd` says 0), and the first track whose `mdia/hdlr` is `vide` holds the presentation size in `tkhd`. A rotation
 * of 90° or 270° in the track matrix (phones filming upright) swaps the size, as players show it.
 * Box headers are read one at a time by position, so a `moov` at the end of a large file costs a few small reads.
 */
import type { ByteSource } from './byte-source';
import { ascii, i32be, u32be, u64be, u8 } from './read-int';
import { millis, pixels, type MediaFacts } from './types';

interface Box {
  type: string;
  /** First byte of the payload. */
  body: number;
  /** One past the last byte; Infinity when the box runs to an end this source cannot see. */
  end: number;
}

const MAX_BOXES_PER_LEVEL = 4096;

async function* children(src: ByteSource, from: number, to: number): AsyncGenerator<Box> {
  let at = from;
  for (let n = 0; n < MAX_BOXES_PER_LEVEL && at + 8 <= to; n++) {
    const h = await src.read(at, 16);
    const size32 = u32be(h, 0);
    const type = ascii(h, 4, 4);
    if (size32 === undefined || type === undefined) return;
    let body = at + 8;
    let end: number;
    if (size32 === 1) {
      const large = u64be(h, 8);
      if (large === undefined || large < 16) return;
      body = at + 16;
      end = at + large;
    } else if (size32 === 0) {
      end = src.size ?? Infinity;
    } else if (size32 < 8) {
      return;
    } else {
      end = at + size32;
    }
    yield { type, body, end: Math.min(end, to) };
    if (!Number.isFinite(end)) return;
    at = end;
  }
}

async function find(src: ByteSource, parent: { body: number; end: number }, type: string): Promise<Box | undefined> {
  for await (const box of children(src, parent.body, parent.end)) if (box.type === type) return box;
  return undefined;
}

/** version(1) flags(3), then 32- or 64-bit times depending on the version: returns [timescale, duration]. */
function readMvhd(b: Uint8Array): [number | undefined, number | undefined] {
  const version = u8(b, 0);
  if (version === 0) {
    const duration = u32be(b, 16);
    return [u32be(b, 12), duration === 0xffffffff ? undefined : duration];
  }
  if (version === 1) return [u32be(b, 20), u64be(b, 24)];
  return [undefined, undefined];
}

function readMehd(b: Uint8Array): number | undefined {
  const version = u8(b, 0);
  if (version === 0) return u32be(b, 4);
  if (version === 1) return u64be(b, 4);
  return undefined;
}

/** Presentation width and height (16.16 fixed point) after the 3×3 matrix, swapped for a quarter turn. */
function readTkhd(b: Uint8Array): MediaFacts {
  const version = u8(b, 0);
  const matrixAt = version === 1 ? 52 : version === 0 ? 40 : -1;
  if (matrixAt < 0) return {};
  const a = i32be(b, matrixAt);
  const d = i32be(b, matrixAt + 16);
  const w = u32be(b, matrixAt + 36);
  const h = u32be(b, matrixAt + 40);
  if (w === undefined || h === undefined) return {};
  const width = pixels(Math.round(w / 65536));
  const height = pixels(Math.round(h / 65536));
  if (width === undefined || height === undefined) return {};
  const quarterTurn = a === 0 && d === 0;
  return quarterTurn ? { width: height, height: width } : { width, height };
}

async function videoTrackSize(src: ByteSource, trak: Box): Promise<MediaFacts | undefined> {
  const mdia = await find(src, trak, 'mdia');
  const hdlr = mdia && (await find(src, mdia, 'hdlr'));
  if (!hdlr || ascii(await src.read(hdlr.body, 12), 8, 4) !== 'vide') return undefined;
  const tkhd = await find(src, trak, 'tkhd');
  return tkhd ? readTkhd(await src.read(tkhd.body, 96)) : undefined;
}

export async function probeIsoBmff(src: ByteSource): Promise<MediaFacts> {
  const whole = { body: 0, end: src.size ?? Infinity };
  const moov = await find(src, whole, 'moov');
  if (!moov) return {};
  const facts: MediaFacts = {};
  let timescale: number | undefined;
  let duration: number | undefined;
  let size: MediaFacts | undefined;
  let fragmentDuration: number | undefined;
  for await (const box of children(src, moov.body, moov.end)) {
    if (box.type === 'mvhd') [timescale, duration] = readMvhd(await src.read(box.body, 32));
    else if (box.type === 'trak' && size === undefined) size = await videoTrackSize(src, box);
    else if (box.type === 'mvex') {
      const mehd = await find(src, box, 'mehd');
      if (mehd) fragmentDuration = readMehd(await src.read(mehd.body, 12));
    }
  }
  const ms = millis(duration === 0 ? fragmentDuration : duration, timescale);
  if (ms !== undefined) facts.duration = ms;
  if (size?.width !== undefined) Object.assign(facts, size);
  return facts;
}
