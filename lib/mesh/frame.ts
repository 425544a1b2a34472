/**
 * One entry point per direction for whole frames (mesh-message-wire.md, "A receiver distinguishes the two
 * encodings by the first byte alone").
 *
 * Detection is unconditional and needs no negotiation: 0xF5 is binary v1; 0xF6..0xFF are reserved for later
 * binary versions (invalid UTF-8 leading bytes, so no JSON text starts with them) and refused by name; anything
 * else goes to the JSON floor, which, like the reference, tolerates leading whitespace. The transport's 1 MiB
 * cap is applied before either decoder looks at the bytes.
 */
import { MeshDecodeError, MeshEncodeError } from './errors';
import { decodeJsonFloor, encodeJsonFloor } from './json-floor';
import { createMessage, type MeshMessage, type MessageFields } from './message';
import { WIRE_V1_MAGIC, decodeWireV1, encodeWireV1 } from './wire-v1';

export type FrameFormat = 'json' | 'binary';

export const FRAME_FORMATS: readonly FrameFormat[] = Object.freeze(['json', 'binary'] as const);

/** The reference transport's `DEFAULT_MAX_MESSAGE_SIZE`. */
export const DEFAULT_MAX_FRAME_BYTES = 1_048_576;

export interface DecodeFrameOptions {
  /** Frames larger than this are refused before decoding (default 1 MiB). */
  maxFrameBytes?: number;
}

function checkFrame(bytes: unknown, options: DecodeFrameOptions | undefined): Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw new MeshDecodeError('NOT_BYTES', `a frame must be a Uint8Array or Buffer, got ${bytes === null ? 'null' : typeof bytes}`);
  if (bytes.length === 0) throw new MeshDecodeError('EMPTY_FRAME', 'the frame is empty');
  const max = options?.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  if (bytes.length > max) {
    throw new MeshDecodeError('FRAME_TOO_LARGE', `the frame is ${bytes.length} bytes, more than the ${max}-byte limit`, { length: bytes.length, max });
  }
  return bytes;
}

/** Which codec a frame is in, from its first byte. Throws `MeshDecodeError` for an empty or future-version frame. */
export function sniffFrame(bytes: Uint8Array): FrameFormat {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new MeshDecodeError('EMPTY_FRAME', 'the frame is empty');
  const first = bytes[0];
  if (first === WIRE_V1_MAGIC) return 'binary';
  if (first > WIRE_V1_MAGIC) {
    throw new MeshDecodeError('UNSUPPORTED_WIRE_VERSION', `binary wire version ${first - WIRE_V1_MAGIC + 1} (magic 0x${first.toString(16)}) is not supported`, {
      magic: first,
    });
  }
  return 'json';
}

/** Decodes a frame of either codec and says which one it was. */
export function decodeFrameWithFormat(bytes: Uint8Array, options?: DecodeFrameOptions): { message: MeshMessage; format: FrameFormat } {
  const frame = checkFrame(bytes, options);
  const format = sniffFrame(frame);
  return { message: format === 'binary' ? decodeWireV1(frame) : decodeJsonFloor(frame), format };
}

/** Decodes a frame of either codec. Throws `MeshDecodeError` (with a stable `.code`) and nothing else. */
export function decodeFrame(bytes: Uint8Array, options?: DecodeFrameOptions): MeshMessage {
  const frame = checkFrame(bytes, options);
  return sniffFrame(frame) === 'binary' ? decodeWireV1(frame) : decodeJsonFloor(frame);
}

/**
 * Validates a message as `createMessage` does and rethrows its complaint as a `MeshEncodeError` with the same code:
 * this side refuses to emit a frame that a conforming peer would reject.
 */
export function validateForEncode(message: MeshMessage | MessageFields): MeshMessage {
  try {
    return createMessage(message as MessageFields);
  } catch (err) {
    if (err instanceof MeshDecodeError) throw new MeshEncodeError(err.code, err.message, err.details ? { ...err.details } : undefined);
    throw err;
  }
}

/**
 * Encodes a message as a JSON floor or binary v1 frame. The message is validated first (`MeshEncodeError`
 * with the code `createMessage` would give); `encryption_key` and `iv` never leave in media metadata.
 */
export function encodeFrame(message: MeshMessage, format: FrameFormat): Uint8Array {
  if (format !== 'json' && format !== 'binary') {
    throw new MeshEncodeError('BAD_FORMAT', `format must be 'json' or 'binary', got ${JSON.stringify(format)}`);
  }
  const valid = validateForEncode(message);
  return format === 'binary' ? encodeWireV1(valid) : encodeJsonFloor(valid);
}
