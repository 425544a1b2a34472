/**
 * The errors of lib/mesh. Decoders throw `MeshDecodeError` and nothing else, whatever the input; encoders and the
 * application composer throw `MeshEncodeError`. Codes are stable strings (SCREAMING_SNAKE) listed in docs/mesh.md.
 */
import { CodedError } from '../coded-error';

export class MeshError extends CodedError {}

/** Hostile or malformed input on any receive path (frame, fragment, chunk, signature, address). */
export class MeshDecodeError extends MeshError {}

/** A message or operation this side refuses to produce (bad field, reserved key, too many fragments). */
export class MeshEncodeError extends MeshError {}
