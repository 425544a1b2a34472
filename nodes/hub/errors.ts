/**
 * The errors of the hub nodes themselves: input a node cannot turn into a client call, and a node with no usable
 * connection. Everything the client refuses keeps its own `HubError` code (BAD_CHAT_ID, CHAT_GATED, …).
 */
import { CodedError } from '../../lib/coded-error';

export type HubNodeErrorCode =
  /** The node has no hub-config selected (or it is not a hub-config). */
  | 'NO_HUB_CONFIG'
  /** The hub-config could not build its client (bad settings, unusable store); `details.cause` names why. */
  | 'HUB_UNAVAILABLE'
  /** `msg.action` (or the configured action) is not one hub-out knows. */
  | 'BAD_ACTION'
  /** `msg.payload` or a documented `msg` property has the wrong type or is missing for the action. */
  | 'BAD_INPUT'
  /** `stream-append`/`stream-done`/`stream-fail` named no stream this node has open. */
  | 'STREAM_UNKNOWN'
  /** This node already holds the most open streams it allows. */
  | 'STREAM_LIMIT';

export class HubNodeError extends CodedError<HubNodeErrorCode> {}
