/**
 * The `<base>/send` topic: JSON in the plain message form (lib/mesh/plain.ts field names), turned into a message
 * the gateway originates. The composer fills id, priority, TTL, hop count and time, and refuses reserved metadata;
 * here only the gateway's own rules are added: the sender is the gateway (given or not), the app id defaults to
 * `gateway.app_id`, a missing TTL or priority is the send policy's default (the mesh's, lowered to the caps), and a
 * request may carry `request_id` to match its result. Whether the message may go out is send-policy.ts's question.
 */
import { isAddress } from '../../lib/mesh/address';
import { composeMessage } from '../../lib/mesh/composer';
import type { MeshMessage, Priority } from '../../lib/mesh/message';
import { GatewayError, SendRefusal } from '../errors';

export interface SendRequestGateway {
  address: string;
  appId: string;
  now: () => number;
  /** For a request that names none (default: the composer's, TTL 8 and medium). */
  defaults?: { ttl: number; priority: Priority };
}

export interface SendRequest {
  message: MeshMessage;
  requestId?: string;
}

/**
 * Throws `GatewayError` whose `details.requestId` carries the request's `request_id` whenever the payload had a
 * usable one, so that even a refused request is answered under its id.
 */
export function parseSendRequest(payload: Buffer, gateway: SendRequestGateway): SendRequest {
  let requestId: string | undefined;
  try {
    return parse(payload, gateway, (id) => (requestId = id));
  } catch (err) {
    if (requestId !== undefined && err instanceof GatewayError) throw new GatewayError(err.code, err.message, { ...err.details, requestId });
    if (requestId !== undefined && err instanceof Error) throw new SendRefusal((err as { code?: string }).code ?? 'SEND_REJECTED', err.message, { requestId });
    throw err;
  }
}

/** An `off1…` recipient must be a valid address: a typo must not become a frame every neighbour relays. */
function checkRecipient(recipient: unknown): void {
  if (typeof recipient === 'string' && recipient.startsWith('off1') && !isAddress(recipient)) {
    throw new GatewayError('SEND_BAD_RECIPIENT', `recipient ${JSON.stringify((recipient as string).slice(0, 64))} is not a valid off1 address (checksum, length or characters)`);
  }
}

function parse(payload: Buffer, gateway: SendRequestGateway, found: (requestId: string) => void): SendRequest {
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
    found(requestId);
    delete input.request_id;
  }
  checkRecipient(input.recipient);
  if (input.sender !== undefined && input.sender !== gateway.address) {
    throw new GatewayError('BAD_SENDER', `the gateway sends as itself (${gateway.address}); leave sender out`);
  }
  if (input.hop_count !== undefined && input.hop_count !== 0) {
    throw new GatewayError('SEND_BAD_HOP_COUNT', 'a message the gateway originates starts at hop_count 0');
  }
  input.sender = gateway.address;
  if (input.app_id === undefined) input.app_id = gateway.appId;
  if (input.ttl === undefined && gateway.defaults) input.ttl = gateway.defaults.ttl;
  if (input.priority === undefined && gateway.defaults) input.priority = gateway.defaults.priority;
  const message = composeMessage(input, { now: gateway.now });
  return requestId !== undefined ? { message, requestId } : { message };
}
