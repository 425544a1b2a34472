/**
 * `message.send` / `message.reply` uplinks (guide §7): gate, reshape into the materialized downlink (server-stamped
 * `sender`, `chat_type`, `origin_device_id`, `message_id`, `streaming`; fragments through the typed relay), check the
 * produce cap on the marshaled downlink, write one inbox row per recipient, then `message.ack` the sender.
 */
import { gateChatUplink, senderOf } from '../chat-gate';
import type { HubContext } from '../context';
import {
  isObject,
  normalizeFragments,
  normalizeReply,
  STAMP_RESERVE_BYTES,
  staticStreaming,
  utf8Bytes,
  type Envelope,
} from '../envelope';
import { fanoutRow, originOf } from '../fanout';
import { sendAck, sendError, uplinkMessageId } from '../replies';
import { chatFrameHead } from '../chat-frame';
import type { Session } from '../session';

export function onMessageSend(ctx: HubContext, session: Session, env: Envelope): void {
  const chat = gateChatUplink(ctx, session, env, { checkMessageId: true });
  if (!chat) return;
  const payload = env.payload;
  if (!isObject(payload) || !isObject(payload.message)) {
    sendError(ctx, session, env, 'bad_request', 'payload.message is required and must be an object');
    return;
  }
  if (payload.message_id !== undefined && typeof payload.message_id !== 'string') {
    sendError(ctx, session, env, 'bad_request', 'payload.message_id must be a string');
    return;
  }
  const message = payload.message;
  if (!isObject(message.body) || !Array.isArray(message.body.fragments)) {
    sendError(ctx, session, env, 'bad_request', 'payload.message.body.fragments must be an array');
    return;
  }
  const context = isObject(message.context) ? message.context : {};
  const messageId = uplinkMessageId(env) ?? ctx.ids.messageId();
  const event = env.event as string;
  const frame: Record<string, unknown> = {
    ...chatFrameHead(ctx, env, chat, event, senderOf(session), session.deviceId),
    ...(Array.isArray(env.ciphertext_fragments) ? { ciphertext_fragments: env.ciphertext_fragments } : {}),
    payload: {
      message_id: messageId,
      // Not defaulted (§7.5): an omitted mode reads "" downstream.
      message_mode: typeof payload.message_mode === 'string' ? payload.message_mode : '',
      message: {
        body: { fragments: normalizeFragments(message.body.fragments, false) },
        // mentions is relayed element for element, and null when the producer left it out (§7.1).
        context: { mentions: context.mentions === undefined ? null : context.mentions, reply: normalizeReply(context.reply) },
        streaming: staticStreaming(),
      },
    },
  };
  const size = utf8Bytes(JSON.stringify(frame)) + STAMP_RESERVE_BYTES;
  if (size > ctx.settings.max_produce_bytes) {
    sendError(ctx, session, env, 'message_too_large', `marshaled envelope is ${size} bytes, max ${ctx.settings.max_produce_bytes} bytes`);
    return;
  }
  fanoutRow(ctx, chat, originOf(session), { message_id: messageId, event, kind: 'message', chat_id: chat.id, stream_merged: false, frame });
  sendAck(ctx, session, env, messageId);
}
