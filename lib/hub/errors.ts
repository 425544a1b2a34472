/**
 * The errors of lib/hub. Every failure the client reports (a refused send, a local rule, the token refused) is a
 * `HubError` with a stable code; codes are listed in docs/hub.md. A `message.error` from the hub becomes
 * `SEND_REJECTED` with the hub's own code in `details.serverCode` (any code, known or not, is terminal).
 */
import { CodedError } from '../coded-error';

export type HubErrorCode =
  /** The options given to the client are unusable. */
  | 'BAD_OPTIONS'
  /** An argument of a call is unusable (empty text, bad fragment, …). */
  | 'BAD_ARGUMENT'
  /** The chat id breaks the configured rule (`chatIdRule: 'cnv'`). */
  | 'BAD_CHAT_ID'
  /** A caller-supplied message id is not `msg-` + a 26-character Crockford ULID. */
  | 'BAD_MESSAGE_ID'
  /** A presence user id is not `usr_…` / `agt_…`. */
  | 'BAD_USER_ID'
  /** A reaction emoji is empty, not valid UTF-8 or above 64 bytes. */
  | 'BAD_EMOJI'
  /** The hub answered `message.error`; `details.serverCode` holds its code. Terminal for that uplink. */
  | 'SEND_REJECTED'
  /** Sends to this chat are paused after `chat_not_found` / `not_member` (guide §14.3). */
  | 'CHAT_GATED'
  /** The send was given up after `sendExpiryMs` without an answer. */
  | 'SEND_EXPIRED'
  /** The durable outbox is full; nothing was queued. */
  | 'OUTBOX_FULL'
  /** The frame would exceed the hub's 8 MiB frame cap and could never be accepted. */
  | 'FRAME_TOO_LARGE'
  /** The operation needs a live session and there is none. */
  | 'NOT_CONNECTED'
  /** The client was stopped; durable sends stay in the outbox for the next start. */
  | 'CLIENT_STOPPED'
  /** The hub refused the token (`hello-fail` "authentication failed"). Terminal for that token. */
  | 'AUTH_FAILED'
  /** More presence subscriptions than the hub allows on one connection (16). */
  | 'PRESENCE_LIMIT'
  /** A stream writer was used after `done()` / `fail()`. */
  | 'STREAM_CLOSED'
  /** A received stream held more than `streamMaxChars`; it was cut (its text let go, later frames unchecked). */
  | 'STREAM_TOO_LARGE'
  /** Received streams together held more than `streamTotalMaxChars`; the largest was cut. */
  | 'STREAMS_OVER_BUDGET'
  /** `device.cursor.reset` was sent but the hub did not close the connection in time. */
  | 'RESET_NOT_CONFIRMED'
  /** The store refused a write the client needed. `cause` holds the StoreError. */
  | 'STORE_FAILED'
  /** A v2 frame broke the dseq density check; the connection was dropped so that replay refills the gap. */
  | 'DSEQ_GAP'
  /** A received frame could not be handled and was quarantined (recorded, acked, skipped). */
  | 'FRAME_QUARANTINED'
  /** An event listener threw; the client went on. */
  | 'LISTENER_THREW'
  /** A received frame whose payload breaks the guide's shape for its event (it is quarantined, never applied). */
  | 'BAD_FRAME'
  /** The token provider gave no token. */
  | 'NO_TOKEN';

export class HubError extends CodedError<HubErrorCode> {}
