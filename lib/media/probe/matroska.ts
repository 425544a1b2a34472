/**
 * Duration and video size from Matroska and WebM, read from the EBML elements near the start of the segment:
 * `Info/Duration` (a float, in units of `Info/TimestampScale` nanoseconds) and the first video track's
 * `PixelWidth`/`PixelHeight`. Live recordings often omit the duration, in which case it stays unknown.
 */
import type { ByteSource } from './byte-source';
import { u8 } from './read-int';
import { millis, pixels, type MediaFacts } from './types';

const ID = {
  EBML: 0x1a45dfa3,
  Segment: 0x18538067,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  Duration: 0x4489,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackType: 0x83,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  Cluster: 0x1f43b675,
} as const;

/** Scan at most this far into the segment: the headers come before the first cluster in practice. */
const MAX_SCAN_BYTES = 4 << 20;
const MAX_ELEMENTS = 4096;
const MAX_ELEMENT_BYTES = 64 * 1024;

interface Element {
  id: number;
  body: number;
  /** Infinity for an element of unknown size (live streams). */
  end: number;
}

/** An EBML variable-length integer at `o`: [value, length]; `keepMarker` for element ids. */
function vint(b: Uint8Array, o: number, keepMarker: boolean): [number, number] | undefined {
  const first = u8(b, o);
  if (first === undefined || first === 0) return undefined;
  let length = 1;
  while (length <= 8 && (first & (0x80 >> (length - 1))) === 0) length++;
  if (length > 8 || o + length > b.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === (0xff >> length);
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[o + i];
    if (b[o + i] !== 0xff) allOnes = false;
  }
  if (!keepMarker && allOnes) return [Infinity, length];
  return Number.isSafeInteger(value) || value === Infinity ? [value, length] : undefined;
}

async function* elements(src: ByteSource, from: number, to: number): AsyncGenerator<Element> {
  let at = from;
  for (let n = 0; n < MAX_ELEMENTS && at < to && at < MAX_SCAN_BYTES; n++) {
    const h = await src.read(at, 12);
    const id = vint(h, 0, true);
    const size = id && vint(h, id[1], false);
    if (!id || !size) return;
    const body = at + id[1] + size[1];
    const end = Math.min(body + size[0], to);
    yield { id: id[0], body, end };
    if (!Number.isFinite(end)) return;
    at = end;
  }
}

function uint(b: Uint8Array): number | undefined {
  if (b.length === 0 || b.length > 7) return undefined;
  let v = 0;
  for (const x of b) v = v * 256 + x;
  return v;
}

function float(b: Uint8Array): number | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length === 4) return view.getFloat32(0);
  if (b.length === 8) return view.getFloat64(0);
  return undefined;
}

async function body(src: ByteSource, e: Element): Promise<Uint8Array> {
  return Number.isFinite(e.end) && e.end - e.body <= MAX_ELEMENT_BYTES ? src.read(e.body, e.end - e.body) : new Uint8Array(0);
}

async function videoSize(src: ByteSource, tracks: Element): Promise<MediaFacts | undefined> {
  for await (const entry of elements(src, tracks.body, tracks.end)) {
    if (entry.id !== ID.TrackEntry) continue;
    let type: number | undefined;
    let size: MediaFacts | undefined;
    for await (const e of elements(src, entry.body, entry.end)) {
      if (e.id === ID.TrackType) type = uint(await body(src, e));
      else if (e.id === ID.Video) {
        let width: number | undefined;
        let height: number | undefined;
        for await (const v of elements(src, e.body, e.end)) {
          if (v.id === ID.PixelWidth) width = pixels(uint(await body(src, v)));
          else if (v.id === ID.PixelHeight) height = pixels(uint(await body(src, v)));
        }
        if (width !== undefined && height !== undefined) size = { width, height };
      }
    }
    if (type === 1 && size) return size;
  }
  return undefined;
}

export async function probeMatroska(src: ByteSource): Promise<MediaFacts> {
  const top = { end: src.size ?? Infinity };
  let segment: Element | undefined;
  for await (const e of elements(src, 0, top.end)) {
    if (e.id === ID.Segment) {
      segment = e;
      break;
    }
    if (e.id !== ID.EBML) return {};
  }
  if (!segment) return {};
  const facts: MediaFacts = {};
  let scale = 1_000_000;
  let rawDuration: number | undefined;
  for await (const e of elements(src, segment.body, segment.end)) {
    if (e.id === ID.Cluster) break;
    if (e.id === ID.Info) {
      for await (const i of elements(src, e.body, e.end)) {
        if (i.id === ID.TimestampScale) scale = uint(await body(src, i)) ?? scale;
        else if (i.id === ID.Duration) rawDuration = float(await body(src, i));
      }
    } else if (e.id === ID.Tracks && facts.width === undefined) {
      Object.assign(facts, (await videoSize(src, e)) ?? {});
    }
  }
  // Duration counts TimestampScale-nanosecond ticks.
  const ms = rawDuration === undefined ? undefined : millis(rawDuration * scale, 1e9);
  if (ms !== undefined) facts.duration = ms;
  return facts;
}
