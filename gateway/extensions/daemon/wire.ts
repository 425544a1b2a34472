/**
 * The gateway-daemon v1 wire (the reference's gateway contract): newline-delimited UTF-8 JSON objects, each with a
 * `type`. This file only names the messages and the rules on their fields; session.ts speaks them.
 */
export const PROTOCOL_VERSION = 1;
/** The reference clients abandon a connection past a 1 MiB line, so nothing longer is read or written. */
export const MAX_LINE_BYTES = 1_048_576;
/** What a gateway accepts as a client's `message_id`; anything else is replaced by one it mints. */
export const CLIENT_MESSAGE_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** The capability tokens this gateway advertises: no mailbox (nothing is stored), no backbone. */
export const CAPABILITY_TOKENS: readonly string[] = ['gateway_v1'];
/** Peers one `CheckPresence` may name; the rest of a longer list is not answered. */
export const MAX_PEERS_PER_CHECK = 1024;

/** Verdict reasons: `recipient_unreachable` is the one the clients act on; the others are plain failures. */
export type DeliveryReason = 'recipient_unreachable' | 'attach_required' | 'budget_exceeded' | 'frame_too_large' | 'malformed_request' | 'not_forwarded';

export type Outbound =
  | { type: 'Challenge'; challenge: string; protocol_version: number }
  | { type: 'AddressDeclared'; address: string }
  | { type: 'AddressError'; reason: string }
  | { type: 'Capabilities'; tokens: readonly string[] }
  | { type: 'StatusUpdate'; status: 'connected' | 'degraded' | 'disconnected' }
  | { type: 'MessageSent'; message_id: string; recipient: string; pushed: false; stored: false }
  | { type: 'DeliveryError'; message_id: string; recipient: string; reason: string; stored: false }
  | { type: 'MessageReceived'; sender: string; content: string; encoding: 'base64'; message_id?: string }
  | { type: 'PresenceStatus'; peer: string; online: boolean; last_seen_ms?: number };

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
