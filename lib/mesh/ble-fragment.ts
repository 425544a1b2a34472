/**
 * Bluetooth LE fragment framing, compatible with the reference transport (mesh-reference-facts.md §3 "Fragment").
 *
 * One mesh frame (JSON floor or binary v1) is cut into radio writes, each carrying
 *
 *   4F 50 ("OP") | 01 version | id_len u8 | message id UTF-8 | index u16 LE | total u16 LE | data_len u16 LE | data
 *
 * Little-endian on purpose: the reference wrote it that way and every phone in the field reads it that way. There are no
 * frozen vectors for this layer, so the receive rules below are copied rule for rule from the facts, each with its own
 * test, and the framing itself is pinned by the single-fragment example the facts derive from golden vector 1.
 *
 * The reassembler is the hostile-input surface of the radio: every bound (fragments per message, bytes per message,
 * concurrent assemblies, idle time) is checked before memory is committed, so a peer cannot grow it past
 * `maxAssemblies × maxMessageBytes` however it shapes its writes.
 */
import { concatBytes, ownBytes, utf8DecodeExact, utf8Encode } from '../bytes';
import { MeshDecodeError, MeshEncodeError } from './errors';
import { monotonicNow, nonNegativeOption, positiveIntegerOption } from './options';

export const FRAGMENT_MAGIC = Object.freeze([0x4f, 0x50] as const);
export const FRAGMENT_VERSION = 1;
/** Magic, version, id_len, index, total, data_len: everything but the id and the data. */
export const FRAGMENT_HEADER_FIXED_BYTES = 10;
/** The fragment size used when a peer reported no MTU, or an unusable one. */
export const BLE_DEFAULT_FRAGMENT_SIZE = 185;
/** Larger reports are clamped here. */
export const BLE_MAX_FRAGMENT_SIZE = 512;
/** Enforced on send and on receive. */
export const MAX_FRAGMENTS_PER_MESSAGE = 512;
/** The reference transport's frame cap (`DEFAULT_MAX_MESSAGE_SIZE`), applied to a reassembly as it grows. */
export const MAX_REASSEMBLED_BYTES = 1_048_576;
export const MAX_FRAGMENT_ASSEMBLIES = 64;
/** Measured from the most recent fragment of an assembly, not its first. */
export const FRAGMENT_IDLE_TIMEOUT_MS = 30_000;

const MAX_ID_BYTES = 255;
const MAX_DATA_LEN = 0xffff;
// Eviction score: completion ratio minus an age penalty growing to 0.2 over the first minute of an assembly.
/**
 * The largest buffer an assembly sets aside on its first fragment. Its size comes from the fragment's claimed
 * `total`, not from bytes that arrived, so it stays small: 64 hostile first fragments claim at most 1 MiB between
 * them. Longer frames are kept fragment by fragment, as their bytes come.
 */
const MAX_SLAB_BYTES = 16_384;
const AGE_PENALTY_MAX = 0.2;
const AGE_PENALTY_WINDOW_MS = 60_000;

/**
 * The fragment size for a peer, from the value its platform reports (ATT_MTU − 3, i.e. iOS
 * `maximumWriteValueLength` or Android `onMtuChanged − 3`). No report, or one below 185, gives 185: a link that
 * claims less is not trusted to carry less, exactly as the reference falls back. Above 512 is clamped to 512.
 * The result is the size of one whole radio write, header included.
 */
/** Whether `bytes` starts as a BLE fragment (`OP` and the framing version), not a whole frame. */
export function isFragment(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === FRAGMENT_MAGIC[0] && bytes[1] === FRAGMENT_MAGIC[1] && bytes[2] === FRAGMENT_VERSION;
}

export function fragmentSizeForMtu(reportedMtu?: number): number {
  if (reportedMtu === undefined || !Number.isFinite(reportedMtu)) return BLE_DEFAULT_FRAGMENT_SIZE;
  const size = Math.floor(reportedMtu);
  if (size < BLE_DEFAULT_FRAGMENT_SIZE) return BLE_DEFAULT_FRAGMENT_SIZE;
  return Math.min(size, BLE_MAX_FRAGMENT_SIZE);
}

/** The same rule from a raw negotiated ATT MTU (what noble and BlueZ report), which still includes the 3-byte ATT header. */
export function fragmentSizeForAttMtu(attMtu?: number): number {
  return fragmentSizeForMtu(attMtu === undefined ? undefined : attMtu - 3);
}

/** Payload bytes one fragment carries for a given message id at a given fragment size. */
export function fragmentPayloadSize(messageId: string, fragmentSize: number): number {
  return fragmentSize - FRAGMENT_HEADER_FIXED_BYTES - utf8Encode(messageId).length;
}

/**
 * Split one frame into fragments of at most `fragmentSize` bytes each. `messageId` is the id written in every header;
 * the reference writes the 36-character lowercase UUID of the message, and receivers key reassembly by it.
 * The fragments are views of one buffer made for this call (never of `frame`), safe to hand to a radio write that
 * keeps them.
 */
export function encodeFragments(frame: Uint8Array, messageId: string, fragmentSize: number): Uint8Array[] {
  const id = utf8Encode(messageId);
  if (id.length > MAX_ID_BYTES) {
    throw new MeshEncodeError('FRAGMENT_ID_TOO_LONG', `fragment message id is ${id.length} UTF-8 bytes; at most ${MAX_ID_BYTES} fit the header`, {
      idBytes: id.length,
    });
  }
  if (!Number.isInteger(fragmentSize) || fragmentSize <= FRAGMENT_HEADER_FIXED_BYTES + id.length) {
    throw new MeshEncodeError(
      'FRAGMENT_SIZE_TOO_SMALL',
      `fragment size ${fragmentSize} leaves no room for data after the ${FRAGMENT_HEADER_FIXED_BYTES + id.length}-byte header`,
      { fragmentSize, headerBytes: FRAGMENT_HEADER_FIXED_BYTES + id.length },
    );
  }
  const payload = fragmentSize - FRAGMENT_HEADER_FIXED_BYTES - id.length;
  if (payload > MAX_DATA_LEN) {
    throw new MeshEncodeError('FRAGMENT_SIZE_TOO_LARGE', `fragment size ${fragmentSize} exceeds what the u16 data length can describe`, {
      fragmentSize,
    });
  }
  if (frame.length === 0) throw new MeshEncodeError('EMPTY_FRAME', 'cannot fragment an empty frame');
  if (frame.length > MAX_REASSEMBLED_BYTES) {
    throw new MeshEncodeError('FRAME_TOO_LARGE', `frame of ${frame.length} bytes exceeds the ${MAX_REASSEMBLED_BYTES}-byte transport cap`, {
      frameBytes: frame.length,
      limit: MAX_REASSEMBLED_BYTES,
    });
  }
  const total = Math.ceil(frame.length / payload);
  if (total > MAX_FRAGMENTS_PER_MESSAGE) {
    throw new MeshEncodeError(
      'FRAGMENT_LIMIT',
      `frame of ${frame.length} bytes needs ${total} fragments of ${fragmentSize} bytes; the limit is ${MAX_FRAGMENTS_PER_MESSAGE} (${
        MAX_FRAGMENTS_PER_MESSAGE * payload
      } bytes at this size)`,
      { frameBytes: frame.length, fragments: total, limit: MAX_FRAGMENTS_PER_MESSAGE, maxFrameBytes: MAX_FRAGMENTS_PER_MESSAGE * payload },
    );
  }
  // One allocation for every fragment, from Node's pool: a typed array of its own per fragment (over 64 bytes, so
  // with a backing store outside the heap, zero-filled and tracked by the GC) was most of what fragmenting an ACK cost.
  const headerBytes = FRAGMENT_HEADER_FIXED_BYTES + id.length;
  const block = Buffer.allocUnsafe(total * headerBytes + frame.length);
  const out: Uint8Array[] = [];
  let start = 0;
  for (let index = 0; index < total; index++) {
    const data = frame.subarray(index * payload, Math.min(frame.length, (index + 1) * payload));
    const bytes = new Uint8Array(block.buffer, block.byteOffset + start, headerBytes + data.length);
    start += bytes.length;
    bytes[0] = FRAGMENT_MAGIC[0];
    bytes[1] = FRAGMENT_MAGIC[1];
    bytes[2] = FRAGMENT_VERSION;
    bytes[3] = id.length;
    bytes.set(id, 4);
    let at = 4 + id.length;
    at = writeU16le(bytes, at, index);
    at = writeU16le(bytes, at, total);
    at = writeU16le(bytes, at, data.length);
    bytes.set(data, at);
    out.push(bytes);
  }
  return out;
}

export interface DecodedFragment {
  messageId: string;
  index: number;
  total: number;
  /** A view into the input, not a copy. */
  data: Uint8Array;
}

/**
 * Read one fragment header. Rejects a short or truncated write, a foreign magic or version, an id that is not UTF-8,
 * `total` 0, `index ≥ total` and `total` above 512. Bytes after `data_len` are ignored, as the reference ignores them.
 */
export function decodeFragment(bytes: Uint8Array): DecodedFragment {
  if (!(bytes instanceof Uint8Array)) throw new MeshDecodeError('FRAGMENT_NOT_BYTES', 'a fragment must be a Uint8Array or Buffer');
  if (bytes.length < FRAGMENT_HEADER_FIXED_BYTES) {
    throw new MeshDecodeError('FRAGMENT_TOO_SHORT', `fragment of ${bytes.length} bytes is shorter than the ${FRAGMENT_HEADER_FIXED_BYTES}-byte header`, {
      length: bytes.length,
    });
  }
  if (bytes[0] !== FRAGMENT_MAGIC[0] || bytes[1] !== FRAGMENT_MAGIC[1]) {
    throw new MeshDecodeError('BAD_FRAGMENT_MAGIC', 'fragment does not start with "OP"');
  }
  if (bytes[2] !== FRAGMENT_VERSION) {
    throw new MeshDecodeError('BAD_FRAGMENT_VERSION', `fragment version ${bytes[2]} is not ${FRAGMENT_VERSION}`, { version: bytes[2] });
  }
  const idLength = bytes[3];
  if (bytes.length < FRAGMENT_HEADER_FIXED_BYTES + idLength) {
    throw new MeshDecodeError('FRAGMENT_TRUNCATED', `fragment ends inside its ${idLength}-byte message id`, { length: bytes.length, idLength });
  }
  const messageId = utf8DecodeExact(bytes.subarray(4, 4 + idLength));
  if (messageId === undefined) throw new MeshDecodeError('BAD_FRAGMENT_ID', 'fragment message id is not valid UTF-8');
  const at = 4 + idLength;
  const index = bytes[at] | (bytes[at + 1] << 8);
  const total = bytes[at + 2] | (bytes[at + 3] << 8);
  const dataLength = bytes[at + 4] | (bytes[at + 5] << 8);
  const dataStart = at + 6;
  if (bytes.length < dataStart + dataLength) {
    throw new MeshDecodeError('FRAGMENT_TRUNCATED', `fragment declares ${dataLength} data bytes but carries ${bytes.length - dataStart}`, {
      dataLength,
      available: bytes.length - dataStart,
    });
  }
  if (total === 0) throw new MeshDecodeError('BAD_FRAGMENT_TOTAL', 'fragment declares a total of 0 fragments', { messageId });
  if (total > MAX_FRAGMENTS_PER_MESSAGE) {
    throw new MeshDecodeError('FRAGMENT_LIMIT', `fragment declares ${total} fragments; the limit is ${MAX_FRAGMENTS_PER_MESSAGE}`, {
      messageId,
      total,
      limit: MAX_FRAGMENTS_PER_MESSAGE,
    });
  }
  if (index >= total) {
    throw new MeshDecodeError('BAD_FRAGMENT_INDEX', `fragment index ${index} is not below its total ${total}`, { messageId, index, total });
  }
  return { messageId, index, total, data: bytes.subarray(dataStart, dataStart + dataLength) };
}

export interface FragmentReassemblerOptions {
  /** Concurrent assemblies before one is evicted (default 64). */
  maxAssemblies?: number;
  /** Reassembled frame size cap, checked as fragments arrive (default 1 MiB). */
  maxMessageBytes?: number;
  /** An assembly with no new fragment for longer than this is dropped (default 30 000 ms). */
  idleTimeoutMs?: number;
  /** Milliseconds from any fixed origin; monotonic by default. Inject one in tests. */
  now?: () => number;
  /** Told about every assembly dropped before completion (eviction, idle expiry, size overflow). */
  onDrop?: (event: FragmentDropEvent) => void;
}

export interface FragmentDropEvent {
  messageId: string;
  reason: 'evicted' | 'expired' | 'oversize';
  received: number;
  total: number;
}

export type FragmentPushResult =
  | { status: 'incomplete'; messageId: string; received: number; total: number }
  | { status: 'complete'; messageId: string; frame: Uint8Array };

export interface FragmentReassemblerCounters {
  /** Fragments accepted into an assembly or completing a message. */
  fragments: number;
  /** Messages completed (including single-fragment ones). */
  completed: number;
  /** Fragments refused (bad header, mismatched total, overflow). */
  rejected: number;
  /** A fragment whose index was already held and replaced the earlier copy. */
  duplicates: number;
  evicted: number;
  expired: number;
  oversize: number;
}

interface Assembly {
  readonly total: number;
  readonly parts: (Uint8Array | undefined)[];
  received: number;
  bytes: number;
  readonly startedAt: number;
  lastSeenAt: number;
  /**
   * One buffer for the whole frame, sized `total ×` the first fragment's length (when that fits the size cap and
   * `MAX_SLAB_BYTES`):
   * fragments are copied in as they come, and fragments that came in order are the frame already, with no
   * per-fragment copy and no final concatenation. A fragment that does not fit gets a copy of its own.
   */
  readonly slab: Uint8Array | undefined;
  /** Bytes of `slab` used. */
  slabUsed: number;
}

/**
 * Bounded reassembly of fragments into frames, with the reference's receive rules:
 * keyed by the header's message-id string alone (never per peer, never checked against the decoded message);
 * one `total` per id (a fragment disagreeing with its assembly is refused and the assembly kept);
 * a repeated index replaces the earlier copy; `total == 1` completes at once without touching any assembly;
 * the size cap is applied as bytes arrive and an overflow drops the whole assembly; at the assembly cap the one with
 * the lowest (completion − age penalty) is evicted; an assembly idle for longer than the timeout is dropped.
 * Idle assemblies are swept at every `push`, so no timer is needed; `sweep()` exists for quiet links.
 */
export class FragmentReassembler {
  private readonly assemblies = new Map<string, Assembly>();
  private buffered = 0;
  private readonly maxAssemblies: number;
  private readonly maxMessageBytes: number;
  private readonly idleTimeoutMs: number;
  private readonly now: () => number;
  private readonly onDrop: ((event: FragmentDropEvent) => void) | undefined;
  private readonly tally: FragmentReassemblerCounters = {
    fragments: 0,
    completed: 0,
    rejected: 0,
    duplicates: 0,
    evicted: 0,
    expired: 0,
    oversize: 0,
  };

  constructor(options: FragmentReassemblerOptions = {}) {
    this.maxAssemblies = positiveIntegerOption(options.maxAssemblies, MAX_FRAGMENT_ASSEMBLIES, 'maxAssemblies');
    this.maxMessageBytes = positiveIntegerOption(options.maxMessageBytes, MAX_REASSEMBLED_BYTES, 'maxMessageBytes');
    this.idleTimeoutMs = nonNegativeOption(options.idleTimeoutMs, FRAGMENT_IDLE_TIMEOUT_MS, 'idleTimeoutMs');
    this.now = options.now ?? monotonicNow;
    this.onDrop = options.onDrop;
  }

  /** Assemblies in progress. */
  get size(): number {
    return this.assemblies.size;
  }

  /** Data bytes held across all open assemblies; never more than `maxAssemblies × maxMessageBytes`. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /** A snapshot of the running counts. */
  get counters(): Readonly<FragmentReassemblerCounters> {
    return { ...this.tally };
  }

  /** Progress of one assembly, or undefined when none is open under that id. */
  progress(messageId: string): { received: number; total: number; bytes: number } | undefined {
    const a = this.assemblies.get(messageId);
    return a === undefined ? undefined : { received: a.received, total: a.total, bytes: a.bytes };
  }

  /**
   * Take one radio write. Throws `MeshDecodeError` for a fragment it refuses and nothing else; the returned frame is
   * a fresh copy, never a view into a caller's buffer.
   */
  push(bytes: Uint8Array): FragmentPushResult {
    const now = this.now();
    this.expireIdle(now);
    let fragment: DecodedFragment;
    try {
      fragment = decodeFragment(bytes);
    } catch (err) {
      this.tally.rejected++;
      throw err;
    }
    const { messageId, index, total, data } = fragment;

    if (total === 1) {
      if (data.length > this.maxMessageBytes) throw this.reject(oversize(messageId, data.length, this.maxMessageBytes));
      this.tally.fragments++;
      this.tally.completed++;
      return { status: 'complete', messageId, frame: ownBytes(data) };
    }

    let assembly = this.assemblies.get(messageId);
    if (assembly !== undefined && assembly.total !== total) {
      throw this.reject(
        new MeshDecodeError('FRAGMENT_TOTAL_MISMATCH', `fragment of ${messageId} declares ${total} fragments; its assembly expects ${assembly.total}`, {
          messageId,
          total,
          expected: assembly.total,
        }),
      );
    }
    if (assembly === undefined) {
      if (this.assemblies.size >= this.maxAssemblies) this.evictOne(now);
      const slabBytes = total * data.length;
      const slab = data.length > 0 && slabBytes <= Math.min(this.maxMessageBytes, MAX_SLAB_BYTES) ? new Uint8Array(slabBytes) : undefined;
      assembly = { total, parts: new Array<Uint8Array | undefined>(total), received: 0, bytes: 0, startedAt: now, lastSeenAt: now, slab, slabUsed: 0 };
      this.assemblies.set(messageId, assembly);
    }

    const previous = assembly.parts[index];
    const grown = assembly.bytes - (previous === undefined ? 0 : previous.length) + data.length;
    if (grown > this.maxMessageBytes) {
      this.drop(messageId, assembly, 'oversize');
      throw this.reject(oversize(messageId, grown, this.maxMessageBytes));
    }
    assembly.parts[index] = keep(assembly, data);
    this.buffered += grown - assembly.bytes;
    assembly.bytes = grown;
    assembly.lastSeenAt = now;
    if (previous === undefined) assembly.received++;
    else this.tally.duplicates++;
    this.tally.fragments++;

    if (assembly.received < total) return { status: 'incomplete', messageId, received: assembly.received, total };
    this.assemblies.delete(messageId);
    this.buffered -= assembly.bytes;
    this.tally.completed++;
    return { status: 'complete', messageId, frame: joined(assembly) };
  }

  /** Drop every assembly idle past the timeout; returns their ids. */
  sweep(): string[] {
    return this.expireIdle(this.now());
  }

  /** Forget every assembly (a link went down, the transport restarted). */
  clear(): void {
    this.assemblies.clear();
    this.buffered = 0;
  }

  private expireIdle(now: number): string[] {
    const expired: string[] = [];
    for (const [id, a] of this.assemblies) {
      if (now - a.lastSeenAt > this.idleTimeoutMs) expired.push(id);
    }
    for (const id of expired) this.drop(id, this.assemblies.get(id) as Assembly, 'expired');
    return expired;
  }

  private evictOne(now: number): void {
    let victim: string | undefined;
    let lowest = Infinity;
    // Strict `<` keeps the earliest-opened assembly on a tie, so the choice is deterministic.
    for (const [id, a] of this.assemblies) {
      const agePenalty = Math.min(Math.max(now - a.startedAt, 0) / AGE_PENALTY_WINDOW_MS, 1) * AGE_PENALTY_MAX;
      const score = a.received / a.total - agePenalty;
      if (score < lowest) {
        lowest = score;
        victim = id;
      }
    }
    if (victim !== undefined) this.drop(victim, this.assemblies.get(victim) as Assembly, 'evicted');
  }

  private drop(messageId: string, assembly: Assembly, reason: FragmentDropEvent['reason']): void {
    this.assemblies.delete(messageId);
    this.buffered -= assembly.bytes;
    if (reason === 'evicted') this.tally.evicted++;
    else if (reason === 'expired') this.tally.expired++;
    else this.tally.oversize++;
    this.onDrop?.({ messageId, reason, received: assembly.received, total: assembly.total });
  }

  private reject(err: MeshDecodeError): MeshDecodeError {
    this.tally.rejected++;
    return err;
  }
}

/** A copy of a fragment's data the assembly owns: in its slab while there is room, else on its own. */
function keep(assembly: Assembly, data: Uint8Array): Uint8Array {
  const slab = assembly.slab;
  if (slab === undefined || slab.length - assembly.slabUsed < data.length) return ownBytes(data);
  const at = assembly.slabUsed;
  slab.set(data, at);
  assembly.slabUsed = at + data.length;
  return slab.subarray(at, at + data.length);
}

/** The frame: the slab's front when the parts lie there in index order (fragments that came in order), else a join. */
function joined(assembly: Assembly): Uint8Array {
  const parts = assembly.parts as Uint8Array[];
  const slab = assembly.slab;
  if (slab !== undefined) {
    let at = slab.byteOffset;
    for (const p of parts) {
      if (p.buffer !== slab.buffer || p.byteOffset !== at) return concatBytes(parts);
      at += p.length;
    }
    return slab.subarray(0, at - slab.byteOffset);
  }
  return concatBytes(parts);
}

function oversize(messageId: string, bytes: number, limit: number): MeshDecodeError {
  return new MeshDecodeError('FRAGMENTED_MESSAGE_TOO_LARGE', `reassembly of ${messageId} reaches ${bytes} bytes; the cap is ${limit}`, {
    messageId,
    bytes,
    limit,
  });
}

function writeU16le(bytes: Uint8Array, at: number, value: number): number {
  bytes[at] = value & 0xff;
  bytes[at + 1] = value >>> 8;
  return at + 2;
}
