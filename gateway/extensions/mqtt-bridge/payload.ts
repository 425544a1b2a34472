/**
 * What a received mesh message looks like on MQTT: the JSON floor exactly as lib/mesh renders it (so 64-bit
 * integers stay exact and every field has its wire name), followed by the reception fields. The floor's key set
 * is closed, so the added keys can never collide with a message field.
 */
import { jsonFloorText } from '../../../lib/mesh/json-floor';
import type { MeshMessageEvent } from '../../bus';

export function messagePayload(event: MeshMessageEvent, gatewayId: string): string {
  const rx = event.rx;
  let tail = `,"rx_radio":${JSON.stringify(rx.radioId)},"rx_peer":${JSON.stringify(rx.peerId)}`;
  if (rx.peerAddress !== undefined) tail += `,"rx_peer_address":${JSON.stringify(rx.peerAddress)}`;
  if (rx.rssi !== undefined) tail += `,"rssi":${rx.rssi}`;
  tail += `,"rx_codec":"${event.codec}","received_at":${rx.receivedAt},"to_gateway":${event.toGateway},"sender_verified":${event.senderVerified},"gateway":${JSON.stringify(gatewayId)}`;
  // One rendering: cutting the floor's closing brace off flattened the whole text once more per message.
  return jsonFloorText(event.message, tail);
}
