/**
 * The application-facing composer: how a flow, a script or the CLI turns its own input into a message
 * (mesh-message-wire.md, "Reserved keys": applications MUST NOT write them; "Two further fields": the transport
 * peer identity MUST NOT be accepted from outside the transport).
 *
 * It takes the plain-object form (see plain.ts), fills in what an application rarely sets (a random id, priority
 * medium, TTL 8, hop count 0, the current time) and refuses every reserved metadata key, because `__ctrl_sig` and
 * `__ctrl_pk` would let an application forge the control plane and `ack_for` would let it forge delivery. A
 * `transport_peer_id` or `wire_codec` in the input is refused rather than ignored, so that nobody believes it was
 * honoured. The protocol layer (acks, chunks, control signing) builds its messages with `createMessage` instead.
 */
import { MeshDecodeError, MeshEncodeError } from './errors';
import { createMessage, DEFAULT_TTL, type MeshMessage, type MessageIdLike } from './message';
import { MessageId } from './message-id';
import { plainFields } from './plain';

/** Metadata keys only the protocol layer writes. */
export const RESERVED_METADATA_KEYS: readonly string[] = Object.freeze([
  'ack_for',
  'ack_hop_count',
  'ack_transport',
  'transport_preference',
  'original_content_type',
  '__ctrl_sig',
  '__ctrl_pk',
]);

const RESERVED: ReadonlySet<string> = new Set(RESERVED_METADATA_KEYS);

export function isReservedMetadataKey(key: string): boolean {
  return RESERVED.has(key);
}

export interface ComposeOptions {
  /** Wall clock in Unix milliseconds for a missing `timestamp` (default `Date.now`). */
  now?: () => number;
  /** Id for a missing `id` (default `MessageId.random`). */
  newId?: () => MessageIdLike;
}

function refuseInProcessFields(input: Record<string, unknown>): void {
  if (Object.prototype.hasOwnProperty.call(input, 'transport_peer_id')) {
    throw new MeshEncodeError(
      'TRANSPORT_PEER_ID_REFUSED',
      'transport_peer_id is stamped by the transport on receipt and is never taken from a message',
      { field: 'transport_peer_id' },
    );
  }
  if (Object.prototype.hasOwnProperty.call(input, 'wire_codec')) {
    throw new MeshEncodeError('WIRE_CODEC_REFUSED', 'wire_codec is not a message field; choose the codec when encoding (format)', { field: 'wire_codec' });
  }
}

/**
 * A message from application input. Throws `MeshEncodeError`: `RESERVED_METADATA_KEY` (with `details.key`),
 * `TRANSPORT_PEER_ID_REFUSED`, `WIRE_CODEC_REFUSED`, or the code `createMessage` gives for a bad field.
 */
export function composeMessage(input: unknown, options: ComposeOptions = {}): MeshMessage {
  const now = options.now ?? Date.now;
  const newId = options.newId ?? MessageId.random;
  let message: MeshMessage;
  try {
    if (input !== null && typeof input === 'object') refuseInProcessFields(input as Record<string, unknown>);
    message = createMessage(
      plainFields(input, {
        id: newId,
        priority: 'medium',
        ttl: DEFAULT_TTL,
        hop_count: 0,
        timestamp: () => BigInt(Math.trunc(now())),
      }),
    );
  } catch (err) {
    if (err instanceof MeshDecodeError) throw new MeshEncodeError(err.code, err.message, err.details ? { ...err.details } : undefined);
    throw err;
  }
  for (const key of message.metadata.keys()) {
    if (RESERVED.has(key)) {
      throw new MeshEncodeError('RESERVED_METADATA_KEY', `metadata key ${JSON.stringify(key)} is reserved for the protocol layer`, { field: 'metadata', key });
    }
  }
  return message;
}
