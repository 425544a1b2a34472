/**
 * `@clawling/node-red-mesh/mesh`: the mesh message protocol for integrators (docs/mesh.md, docs/mesh-transport.md).
 * Message model and codecs first; the transport rules (fragments, chunks, control signatures, addresses, acks,
 * forwarding, dedup) are appended below them.
 */
export { MeshError, MeshDecodeError, MeshEncodeError } from './errors';
export {
  createMessage,
  DEFAULT_TTL,
  LAMPORT_CLOCK_MAX,
  type ContentType,
  type ForwardedFrom,
  type MediaMetadata,
  type MeshMessage,
  type MessageFields,
  type MessageIdLike,
  type Priority,
  type ReplyContext,
} from './message';
export { MessageId } from './message-id';
export { CONTENT_TYPES, PRIORITIES } from './enums';
export { MAX_IDENTIFIER_BYTES, isValidIdentifier } from './identifier';
export {
  DEFAULT_MAX_FRAME_BYTES,
  FRAME_FORMATS,
  decodeFrame,
  decodeFrameWithFormat,
  encodeFrame,
  sniffFrame,
  type DecodeFrameOptions,
  type FrameFormat,
} from './frame';
export { WIRE_V1_MAGIC } from './wire-v1';
export { RESERVED_METADATA_KEYS, composeMessage, isReservedMetadataKey, type ComposeOptions } from './composer';
export {
  fromPlain,
  toPlain,
  type PlainForwardedFrom,
  type PlainInteger,
  type PlainMediaMetadata,
  type PlainMessage,
  type PlainReplyContext,
} from './plain';
export { parseJsonPlain } from './json-plain';
export { frameBytesFromInput } from './frame-input';
// Transport rules (mesh-rules): docs/mesh-transport.md.
export * from './transport';
export * from './ble-fragment';
export * from './address';
export * from './gateway-address-proof';
export * from './control-prefixes';
export * from './canonical-payload';
export * from './control-signature';
export * from './control-gate';
export * from './sender-verified';
export * from './ack';
export * from './forwarding';
export * from './dedup';
export * from './file-chunk-codec';
export * from './chunked-file';
export * from './file-send-window';
export * from './serial-framing';
export * from './key-package';
export * from './wire-capabilities';
export * from './identity-assertion';
export * from './mls-envelope';
