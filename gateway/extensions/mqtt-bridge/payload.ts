/**
 * What a received mesh message looks like on MQTT: the JSON floor exactly as lib/mesh renders it (so 64-bit
 * integers stay exact and every field has its wire name), followed by the reception fields. The floor's key set
 * is closed, so the added keys can never collide with a message field.
 */
import { jsonFloorBytes } from '../../../lib/mesh/json-floor';
import type { MeshMessageEvent } from '../../bus';

/** A view the next rendering overwrites: the outbox copies it into its entry at once. */
export function messagePayload(event: MeshMessageEvent, gatewayId: string): Uint8Array {
  const rx = event.rx;
  let tail = `,"rx_radio":${JSON.stringify(rx.radioId)},"rx_peer":${JSON.stringify(rx.peerId)}`;
  if (rx.peerAddress !== undefined) tail += `,"rx_peer_address":${JSON.stringify(rx.peerAddress)}`;
  if (rx.rssi !== undefined) tail += `,"rssi":${rx.rssi}`;
  tail += `,"rx_codec":"${event.codec}","received_at":${rx.receivedAt},"to_gateway":${event.toGateway},"sender_verified":${event.senderVerified},"gateway":${JSON.stringify(gatewayId)}`;
  // One rendering, straight into bytes: the text was a rope of dozens of strings, flattened again to be stored.
  return jsonFloorBytes(event.message, tail);
}
