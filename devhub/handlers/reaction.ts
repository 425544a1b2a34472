/**
 * `message.reaction` (guide §9.6): a durable, fanned-out event on a last-write-wins slot
 * `rxn:<target_message_id>:<reactor>`. The hub overwrites `message_id` and `reactor_user_id`, validates the emoji
 * (non-empty, well-formed, at most 64 UTF-8 bytes, no allowlist) unless the reaction is a removal, and acks with the
 * slot id.
 */
import { gateChatUplink, senderOf } from '../chat-gate';
import type { HubContext } from '../context';
import { isObject, STAMP_RESERVE_BYTES, utf8Bytes, type Envelope } from '../envelope';
import { fanoutRow, originOf } from '../fanout';
import { sendAck, sendError } from '../replies';
import { chatFrameHead } from '../chat-frame';
import type { Session } from '../session';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function onReaction(ctx: HubContext, session: Session, env: Envelope): void {
  const chat = gateChatUplink(ctx, session, env, { checkMessageId: false });
  if (!chat) return;
  const payload = env.payload;
  const bad = (reason: string): void => sendError(ctx, session, { ...env, payload: {} }, 'bad_request', reason);
  if (!isObject(payload)) return bad('reaction payload does not decode');
  const target = payload.target_message_id;
  if (typeof target !== 'string' || target === '') return bad('target_message_id is required');
  if (payload.removed !== undefined && typeof payload.removed !== 'boolean') return bad('removed must be a boolean');
  if (payload.emoji !== undefined && typeof payload.emoji !== 'string') return bad('emoji must be a string');
  const removed = payload.removed === true;
  const emoji = typeof payload.emoji === 'string' ? payload.emoji : '';
  if (!removed) {
    if (emoji === '') return bad('emoji is required');
    if (LONE_SURROGATE.test(emoji)) return bad('emoji is not valid UTF-8');
    const max = ctx.settings.max_emoji_bytes;
    if (utf8Bytes(emoji) > max) return bad(`emoji is ${utf8Bytes(emoji)} bytes, max ${max} bytes`);
  }
  const reactor = session.user!.id;
  const slot = `rxn:${target}:${reactor}`;
  const frame = {
    ...chatFrameHead(ctx, env, chat, 'message.reaction', senderOf(session), session.deviceId),
    payload: { message_id: slot, target_message_id: target, emoji, removed, reactor_user_id: reactor },
  };
  const size = utf8Bytes(JSON.stringify(frame)) + STAMP_RESERVE_BYTES;
  if (size > ctx.settings.max_produce_bytes) {
    sendError(ctx, session, { ...env, payload: {} }, 'message_too_large', `marshaled envelope is ${size} bytes, max ${ctx.settings.max_produce_bytes} bytes`);
    return;
  }
  fanoutRow(ctx, chat, originOf(session), { message_id: slot, event: 'message.reaction', kind: 'reaction', chat_id: chat.id, stream_merged: false, frame });
  sendAck(ctx, session, env, slot);
}
