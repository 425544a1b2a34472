/**
 * The transports a mesh message can arrive on or be sent over, spelled as the reference writes them in the
 * `ack_transport` metadata value (mesh-reference-facts.md §4). A receive path passes the arrival transport beside
 * the message (it is never a message field), and the control gate and the ACK builder read it.
 */
export const TRANSPORTS = Object.freeze(['internet', 'ble', 'wifiDirect', 'reticulum', 'nostr'] as const);

export type Transport = (typeof TRANSPORTS)[number];

export function isTransport(value: unknown): value is Transport {
  return typeof value === 'string' && (TRANSPORTS as readonly string[]).includes(value);
}
