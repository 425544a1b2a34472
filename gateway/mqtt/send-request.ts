/**
 * The `<base>/send` topic: JSON in the plain message form (lib/mesh/plain.ts field names), turned into a message
 * the gateway originates. The composer fills id, priority, TTL, hop count and time, and refuses reserved metadata;
 * here only the gateway's own rules are added: the sender is the gateway (given or not), the app id defaults to
 * `gateway.app_id`, and a request may carry `request_id` to match its result.
 */
import { composeMessage } from '../../lib/mesh/composer';
import type { MeshMessage } from '../../lib/mesh/message';
import { GatewayError } from '../errors';

export interface SendRequest {
  message: MeshMessage;
  requestId?: string;
}

export function parseSendRequest(payload: Buffer, gateway: { address: string; appId: string; now: () => number }): SendRequest {
  let body: unknown;
  try {
    body = JSON.parse(payload.toString('utf8'));
  } catch (err) {
    throw new GatewayError('SEND_BAD_JSON', `the send payload is not JSON: ${(err as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('SEND_BAD_JSON', 'the send payload must be a JSON object');
  }
  const input = { ...(body as Record<string, unknown>) };
  let requestId: string | undefined;
  if (input.request_id !== undefined) {
    if (typeof input.request_id !== 'string' || input.request_id.length > 256) {
      throw new GatewayError('SEND_BAD_REQUEST_ID', 'request_id must be a string of at most 256 characters');
    }
    requestId = input.request_id;
    delete input.request_id;
  }
  if (input.sender !== undefined && input.sender !== gateway.address) {
    throw new GatewayError('BAD_SENDER', `the gateway sends as itself (${gateway.address}); leave sender out`);
  }
  if (input.hop_count !== undefined && input.hop_count !== 0) {
    throw new GatewayError('SEND_BAD_HOP_COUNT', 'a message the gateway originates starts at hop_count 0');
  }
  input.sender = gateway.address;
  if (input.app_id === undefined) input.app_id = gateway.appId;
  const message = composeMessage(input, { now: gateway.now });
  return requestId !== undefined ? { message, requestId } : { message };
}
