/**
 * The head every chat downlink relayed from an uplink carries (§4.1), in the order the hub writes it: the hub's
 * stamps, the chat, the uplink's `to` when it had one, the sender (server-stamped: see `senderOf`), and (except on typing, which
 * never goes to the sender's siblings) the device it came from. The handler appends its own fields and `payload`.
 */
import type { HubContext } from './context';
import type { HubChat } from './directory';
import { isObject, PROTOCOL_VERSION, type Envelope } from './envelope';
import { traceOf } from './replies';

export function chatFrameHead(
  ctx: HubContext,
  env: Envelope,
  chat: HubChat,
  event: string,
  sender: Record<string, unknown>,
  originDeviceId: string | undefined,
): Record<string, unknown> {
  return {
    version: PROTOCOL_VERSION,
    event,
    trace_id: traceOf(env),
    emitted_at: ctx.now(),
    chat_id: chat.id,
    chat_type: chat.type,
    ...(isObject(env.to) ? { to: env.to } : {}),
    sender,
    ...(originDeviceId !== undefined ? { origin_device_id: originDeviceId } : {}),
  };
}
