/**
 * The framed serial link between the gateway and a mesh radio on USB or a UART (docs/serial-framing.md).
 *
 * A serial line is a byte stream with no boundaries and, on a real site, line noise, a device that reboots
 * mid-frame and a boot banner in the middle of the traffic. Each frame therefore carries a two-byte start marker,
 * a fixed header protected by its own CRC (so a corrupted length is caught at once instead of swallowing the next
 * megabyte), the payload, and a CRC over the payload:
 *
 *   A5 5A | version 01 | type u8 | length u32 BE | header CRC-16 BE | payload | payload CRC-16 BE
 *
 * CRC-16 is CRC-16/IBM-3740 (often called CCITT-FALSE): poly 0x1021, init 0xFFFF, no reflection, no final xor;
 * check value 0x29B1 over "123456789". Evolution rule: bytes 0–9 keep this layout in every version, so a receiver
 * skips a frame of a version it does not know by its length and stays in step.
 *
 * `SerialDeframer` is the receive side: it never throws on any byte sequence, holds at most one frame's worth of
 * bytes, and resynchronises after garbage by sliding one byte past a bad start marker and scanning again.
 * `decodeSerialFrame` reads exactly one frame and throws `MeshDecodeError` for anything else.
 */
import { utf8DecodeStrict, utf8Encode } from '../bytes';
import { MeshDecodeError, MeshEncodeError } from './errors';

export const SERIAL_MARKER = Object.freeze([0xa5, 0x5a] as const);
export const SERIAL_VERSION = 1;
/** Marker, version, type, length, header CRC. */
export const SERIAL_HEADER_BYTES = 10;
export const SERIAL_TRAILER_BYTES = 2;
export const SERIAL_OVERHEAD_BYTES = SERIAL_HEADER_BYTES + SERIAL_TRAILER_BYTES;
/** The largest payload the protocol allows: one whole mesh frame at the transport cap (1 MiB). */
export const SERIAL_MAX_PAYLOAD = 1_048_576;
/** A partial frame with no new byte for this long is given up (the device rebooted mid-frame). */
export const SERIAL_STALE_AFTER_MS = 1_000;

export const SerialFrameType = Object.freeze({
  /** One whole mesh frame (JSON floor or binary v1), either direction. */
  DATA: 0x01,
  /** UTF-8 JSON describing the sender: `address`, `wire_versions`, `name`, `max_frame`, `role`. */
  HELLO: 0x02,
  /** Keepalive request; the payload is echoed in the PONG. */
  PING: 0x03,
  PONG: 0x04,
} as const);
export type SerialFrameTypeCode = (typeof SerialFrameType)[keyof typeof SerialFrameType];

export interface SerialFrame {
  type: number;
  /** A fresh copy, owned by the caller. */
  payload: Uint8Array;
}

const CRC_TABLE = buildCrcTable();

function buildCrcTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
}

/** CRC-16/IBM-3740 of `bytes[start, end)`; `crc16(utf8("123456789")) === 0x29b1`. */
export function crc16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >>> 8) ^ bytes[i]) & 0xff];
  return crc;
}

/** One frame on the wire. Throws `MeshEncodeError` for a type outside 0–255 or a payload above `maxPayload`. */
export function encodeSerialFrame(type: number, payload: Uint8Array, maxPayload = SERIAL_MAX_PAYLOAD): Uint8Array {
  if (!Number.isInteger(type) || type < 0 || type > 0xff) {
    throw new MeshEncodeError('SERIAL_BAD_TYPE', `serial frame type ${type} is not a byte`, { type });
  }
  if (!(payload instanceof Uint8Array)) throw new MeshEncodeError('SERIAL_NOT_BYTES', 'a serial payload must be a Uint8Array or Buffer');
  const limit = Math.min(maxPayload, SERIAL_MAX_PAYLOAD);
  if (payload.length > limit) {
    throw new MeshEncodeError('SERIAL_FRAME_TOO_LARGE', `serial payload of ${payload.length} bytes exceeds ${limit}`, {
      length: payload.length,
      limit,
    });
  }
  const out = new Uint8Array(SERIAL_OVERHEAD_BYTES + payload.length);
  out[0] = SERIAL_MARKER[0];
  out[1] = SERIAL_MARKER[1];
  out[2] = SERIAL_VERSION;
  out[3] = type;
  writeU32be(out, 4, payload.length);
  writeU16be(out, 8, crc16(out, 2, 8));
  out.set(payload, SERIAL_HEADER_BYTES);
  writeU16be(out, SERIAL_HEADER_BYTES + payload.length, crc16(payload));
  return out;
}

/** Exactly one frame, nothing before or after it. Throws `MeshDecodeError` (codes `SERIAL_*`) and nothing else. */
export function decodeSerialFrame(bytes: Uint8Array, maxPayload = SERIAL_MAX_PAYLOAD): SerialFrame {
  if (!(bytes instanceof Uint8Array)) throw new MeshDecodeError('SERIAL_NOT_BYTES', 'a serial frame must be a Uint8Array or Buffer');
  if (bytes.length < SERIAL_OVERHEAD_BYTES) {
    throw new MeshDecodeError('SERIAL_TRUNCATED', `serial frame of ${bytes.length} bytes is shorter than the ${SERIAL_OVERHEAD_BYTES}-byte minimum`, {
      length: bytes.length,
    });
  }
  if (bytes[0] !== SERIAL_MARKER[0] || bytes[1] !== SERIAL_MARKER[1]) {
    throw new MeshDecodeError('SERIAL_BAD_MARKER', 'serial frame does not start with A5 5A');
  }
  if (readU16be(bytes, 8) !== crc16(bytes, 2, 8)) throw new MeshDecodeError('SERIAL_BAD_HEADER_CRC', 'serial frame header CRC does not match');
  if (bytes[2] !== SERIAL_VERSION) {
    throw new MeshDecodeError('SERIAL_BAD_VERSION', `serial frame version ${bytes[2]} is not ${SERIAL_VERSION}`, { version: bytes[2] });
  }
  const length = readU32be(bytes, 4);
  const limit = Math.min(maxPayload, SERIAL_MAX_PAYLOAD);
  if (length > limit) {
    throw new MeshDecodeError('SERIAL_FRAME_TOO_LARGE', `serial frame declares ${length} payload bytes; the limit is ${limit}`, { length, limit });
  }
  const total = SERIAL_OVERHEAD_BYTES + length;
  if (bytes.length < total) {
    throw new MeshDecodeError('SERIAL_TRUNCATED', `serial frame declares ${length} payload bytes but carries ${bytes.length - SERIAL_OVERHEAD_BYTES}`, {
      length,
      available: bytes.length - SERIAL_OVERHEAD_BYTES,
    });
  }
  if (bytes.length > total) {
    throw new MeshDecodeError('SERIAL_TRAILING_BYTES', `${bytes.length - total} bytes follow the serial frame`, { extra: bytes.length - total });
  }
  if (readU16be(bytes, SERIAL_HEADER_BYTES + length) !== crc16(bytes, SERIAL_HEADER_BYTES, SERIAL_HEADER_BYTES + length)) {
    throw new MeshDecodeError('SERIAL_BAD_CRC', 'serial frame payload CRC does not match', { length });
  }
  return { type: bytes[3], payload: bytes.slice(SERIAL_HEADER_BYTES, SERIAL_HEADER_BYTES + length) };
}

export interface SerialDeframerOptions {
  /** Payloads above this are treated as corruption (resync); default and ceiling 1 MiB. */
  maxPayload?: number;
  /** A partial frame untouched for longer than this is given up at the next `push` that passes `now`. */
  staleAfterMs?: number;
  /** Told about each discarded stretch (for logs); never about good frames. */
  onDiscard?: (event: SerialDiscardEvent) => void;
}

export type SerialDiscardReason = 'garbage' | 'header_crc' | 'payload_crc' | 'oversize' | 'unknown_version' | 'stale';

export interface SerialDiscardEvent {
  reason: SerialDiscardReason;
  /** Bytes given up (for `unknown_version`, the whole skipped frame). */
  bytes: number;
}

export interface SerialDeframerCounters {
  frames: number;
  /** Bytes that were not part of any accepted frame. */
  discardedBytes: number;
  headerCrcErrors: number;
  payloadCrcErrors: number;
  oversize: number;
  unknownVersion: number;
  stale: number;
}

/** Largest slice of input parsed at once, so a huge `push` never doubles the held buffer. */
const PUSH_SLICE_BYTES = 65_536;

/**
 * The stream side: feed it whatever the port read, get back the whole frames it completed. Never throws for any
 * input bytes; a non-byte argument is the only thing it refuses (`MeshDecodeError` `SERIAL_NOT_BYTES`).
 */
export class SerialDeframer {
  readonly #maxPayload: number;
  readonly #staleAfterMs: number;
  readonly #onDiscard: ((event: SerialDiscardEvent) => void) | undefined;
  #buf: Uint8Array;
  #start = 0;
  #end = 0;
  /** Bytes of a frame of an unknown version still to pass over. */
  #skip = 0;
  #lastInputAt: number | undefined;
  readonly #tally: SerialDeframerCounters = {
    frames: 0,
    discardedBytes: 0,
    headerCrcErrors: 0,
    payloadCrcErrors: 0,
    oversize: 0,
    unknownVersion: 0,
    stale: 0,
  };

  constructor(options: SerialDeframerOptions = {}) {
    const max = options.maxPayload ?? SERIAL_MAX_PAYLOAD;
    if (!Number.isInteger(max) || max < 0) throw new MeshDecodeError('SERIAL_BAD_OPTION', `maxPayload must be a non-negative integer, got ${max}`);
    this.#maxPayload = Math.min(max, SERIAL_MAX_PAYLOAD);
    this.#staleAfterMs = options.staleAfterMs ?? SERIAL_STALE_AFTER_MS;
    this.#onDiscard = options.onDiscard;
    this.#buf = new Uint8Array(4096);
  }

  get counters(): Readonly<SerialDeframerCounters> {
    return { ...this.#tally };
  }

  /** Bytes held waiting for the rest of a frame. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /**
   * Parse more input. `now` (milliseconds, any origin) enables the stale rule: when the held partial frame saw no
   * byte for longer than `staleAfterMs`, it is given up (slide one byte, rescan) before the new bytes are added.
   */
  push(chunk: Uint8Array, now?: number): SerialFrame[] {
    if (!(chunk instanceof Uint8Array)) throw new MeshDecodeError('SERIAL_NOT_BYTES', 'serial input must be a Uint8Array or Buffer');
    const frames: SerialFrame[] = [];
    if (now !== undefined) {
      if (this.#lastInputAt !== undefined && now - this.#lastInputAt > this.#staleAfterMs && (this.buffered > 0 || this.#skip > 0)) {
        this.#giveUpPartial(frames);
      }
      this.#lastInputAt = now;
    }
    for (let at = 0; at < chunk.length; at += PUSH_SLICE_BYTES) {
      this.#append(chunk.subarray(at, Math.min(chunk.length, at + PUSH_SLICE_BYTES)));
      this.#parse(frames);
    }
    return frames;
  }

  /** Forget any partial frame (the port was reopened). */
  reset(): void {
    const held = this.buffered + this.#skip;
    if (held > 0) this.#discard('stale', held);
    this.#start = 0;
    this.#end = 0;
    this.#skip = 0;
    this.#lastInputAt = undefined;
  }

  #giveUpPartial(frames: SerialFrame[]): void {
    this.#tally.stale++;
    if (this.#skip > 0) {
      this.#skip = 0;
      return;
    }
    // Slide past the stale frame's marker and look again: a complete frame may sit behind a truncated one.
    this.#start++;
    this.#discard('stale', 1);
    this.#parse(frames);
  }

  #append(bytes: Uint8Array): void {
    const held = this.#end - this.#start;
    if (this.#end + bytes.length > this.#buf.length) {
      if (held + bytes.length <= this.#buf.length && this.#start > 0) {
        this.#buf.copyWithin(0, this.#start, this.#end);
      } else {
        let size = this.#buf.length;
        while (size < held + bytes.length) size *= 2;
        const grown = new Uint8Array(size);
        grown.set(this.#buf.subarray(this.#start, this.#end));
        this.#buf = grown;
      }
      this.#start = 0;
      this.#end = held;
    }
    this.#buf.set(bytes, this.#end);
    this.#end += bytes.length;
  }

  #parse(frames: SerialFrame[]): void {
    const buf = this.#buf;
    for (;;) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, this.#end - this.#start);
        this.#start += n;
        this.#skip -= n;
        if (this.#skip > 0) break;
        continue;
      }
      const available = this.#end - this.#start;
      if (available === 0) break;
      const marker = this.#findMarker();
      if (marker < 0) {
        // Keep a trailing A5: it may be the first half of a marker split across reads.
        const keep = buf[this.#end - 1] === SERIAL_MARKER[0] ? 1 : 0;
        this.#discard('garbage', available - keep);
        this.#start = this.#end - keep;
        break;
      }
      if (marker > this.#start) {
        this.#discard('garbage', marker - this.#start);
        this.#start = marker;
      }
      if (this.#end - this.#start < SERIAL_HEADER_BYTES) break;
      const s = this.#start;
      if (readU16be(buf, s + 8) !== crc16(buf, s + 2, s + 8)) {
        this.#tally.headerCrcErrors++;
        this.#slide('header_crc');
        continue;
      }
      const length = readU32be(buf, s + 4);
      if (length > this.#maxPayload) {
        this.#tally.oversize++;
        this.#slide('oversize');
        continue;
      }
      if (buf[s + 2] !== SERIAL_VERSION) {
        this.#tally.unknownVersion++;
        this.#discard('unknown_version', SERIAL_OVERHEAD_BYTES + length);
        this.#start += SERIAL_HEADER_BYTES;
        this.#skip = length + SERIAL_TRAILER_BYTES;
        continue;
      }
      const total = SERIAL_OVERHEAD_BYTES + length;
      if (this.#end - s < total) break;
      const payloadEnd = s + SERIAL_HEADER_BYTES + length;
      if (readU16be(buf, payloadEnd) !== crc16(buf, s + SERIAL_HEADER_BYTES, payloadEnd)) {
        this.#tally.payloadCrcErrors++;
        this.#slide('payload_crc');
        continue;
      }
      frames.push({ type: buf[s + 3], payload: buf.slice(s + SERIAL_HEADER_BYTES, payloadEnd) });
      this.#tally.frames++;
      this.#start += total;
    }
    if (this.#start === this.#end) {
      this.#start = 0;
      this.#end = 0;
    }
  }

  /** Index of the next A5 5A at or after `start` (a lone A5 at the very end does not count), or −1. */
  #findMarker(): number {
    const buf = this.#buf;
    let at = this.#start;
    for (;;) {
      const hit = buf.indexOf(SERIAL_MARKER[0], at);
      if (hit < 0 || hit >= this.#end - 1) return -1;
      if (buf[hit + 1] === SERIAL_MARKER[1]) return hit;
      at = hit + 1;
    }
  }

  /** The frame starting here is not one: give up its first byte only, so a real frame inside it is still found. */
  #slide(reason: SerialDiscardReason): void {
    this.#start++;
    this.#discard(reason, 1);
  }

  #discard(reason: SerialDiscardReason, bytes: number): void {
    if (bytes <= 0) return;
    this.#tally.discardedBytes += bytes;
    this.#onDiscard?.({ reason, bytes });
  }
}

export interface SerialHello {
  /** The sender's mesh address (`off1…`), when it has one. */
  address?: string;
  /** Wire versions the sender decodes; `[1]` when it takes binary v1. */
  wireVersions: number[];
  name?: string;
  /** The largest payload the sender accepts. */
  maxFrame?: number;
  /** `gateway` or `radio`; free-form otherwise. */
  role?: string;
}

/** A HELLO payload: compact UTF-8 JSON with snake_case keys. */
export function encodeSerialHello(hello: SerialHello): Uint8Array {
  const json: Record<string, unknown> = { wire_versions: hello.wireVersions };
  if (hello.address !== undefined) json.address = hello.address;
  if (hello.name !== undefined) json.name = hello.name;
  if (hello.maxFrame !== undefined) json.max_frame = hello.maxFrame;
  if (hello.role !== undefined) json.role = hello.role;
  return utf8Encode(JSON.stringify(json));
}

/** Reads a HELLO payload; unknown keys are ignored, known keys of the wrong type throw `MeshDecodeError` `SERIAL_BAD_HELLO`. */
export function decodeSerialHello(payload: Uint8Array): SerialHello {
  const bad = (problem: string): never => {
    throw new MeshDecodeError('SERIAL_BAD_HELLO', `serial HELLO ${problem}`);
  };
  if (!(payload instanceof Uint8Array)) return bad('is not bytes');
  if (payload.length > 4096) bad(`is ${payload.length} bytes; at most 4096`);
  const text = utf8DecodeStrict(payload);
  if (text === undefined) bad('is not UTF-8');
  let json: unknown;
  try {
    json = JSON.parse(text as string);
  } catch {
    bad('is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return bad('is not a JSON object');
  const o = json as Record<string, unknown>;
  const hello: SerialHello = { wireVersions: [] };
  if (o.wire_versions !== undefined) {
    if (!Array.isArray(o.wire_versions) || o.wire_versions.length > 16 || !o.wire_versions.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)) {
      bad('wire_versions is not a list of at most 16 integers 0–255');
    }
    hello.wireVersions = [...new Set(o.wire_versions as number[])].sort((a, b) => a - b);
  }
  for (const key of ['address', 'name', 'role'] as const) {
    const value = o[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length > 256) bad(`${key} is not a string of at most 256 characters`);
    hello[key] = value as string;
  }
  if (o.max_frame !== undefined) {
    if (!Number.isInteger(o.max_frame) || (o.max_frame as number) < 0) bad('max_frame is not a non-negative integer');
    hello.maxFrame = o.max_frame as number;
  }
  return hello;
}

function readU16be(b: Uint8Array, at: number): number {
  return (b[at] << 8) | b[at + 1];
}

function readU32be(b: Uint8Array, at: number): number {
  return ((b[at] << 24) >>> 0) + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);
}

function writeU16be(b: Uint8Array, at: number, value: number): void {
  b[at] = value >>> 8;
  b[at + 1] = value & 0xff;
}

function writeU32be(b: Uint8Array, at: number, value: number): void {
  b[at] = value >>> 24;
  b[at + 1] = (value >>> 16) & 0xff;
  b[at + 2] = (value >>> 8) & 0xff;
  b[at + 3] = value & 0xff;
}
