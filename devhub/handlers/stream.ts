/**
 * Streaming lifecycle uplinks (guide §8): `message.created` / `add` / `done` / `failed` are relayed live (never
 * persisted, never acked) and fed to the merge buffer. `message.done` materializes the merged `message.reply` row
 * (§8.6); with `stream_merged` configured that row is delivered live too, flagged `payload.stream_merged: true`
 * (§8.4), otherwise only devices that were offline during the stream get it, on replay.
 */
import { gateChatUplink, senderOf } from '../chat-gate';
import { later, type HubContext } from '../context';
import type { HubChat } from '../directory';
import {
  isObject,
  normalizeFragments,
  STAMP_RESERVE_BYTES,
  staticStreaming,
  utf8Bytes,
  type Envelope,
} from '../envelope';
import { fanoutRow, originOf, relayToChat, type Origin } from '../fanout';
import { sendError } from '../replies';
import { chatFrameHead } from '../chat-frame';
import type { Session } from '../session';
import type { StreamBuffer } from '../stream-merge';

function streamingBlock(value: unknown): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of ['status', 'sequence', 'mutation_policy', 'started_at', 'completed_at']) {
    if (key in value) out[key] = value[key];
  }
  return out;
}

/** The flat payload of each lifecycle event, through the typed relay. */
function relayPayload(event: string, payload: Record<string, unknown>, messageId: string): Record<string, unknown> {
  const out: Record<string, unknown> = { message_id: messageId };
  if (event === 'message.created') {
    out.message_mode = typeof payload.message_mode === 'string' ? payload.message_mode : '';
    return out;
  }
  if (event === 'message.add') {
    if (typeof payload.sequence === 'number') out.sequence = payload.sequence;
    out.mutation = isObject(payload.mutation) ? payload.mutation : { type: 'append', target_fragment_index: 0 };
  }
  out.fragments = normalizeFragments(payload.fragments, event === 'message.add');
  const streaming = streamingBlock(payload.streaming);
  if (streaming) out.streaming = streaming;
  if (event === 'message.add' && typeof payload.added_at === 'number') out.added_at = payload.added_at;
  if (event !== 'message.add' && typeof payload.completed_at === 'number') out.completed_at = payload.completed_at;
  return out;
}

export function onStreamEvent(ctx: HubContext, session: Session, env: Envelope): void {
  const chat = gateChatUplink(ctx, session, env, { checkMessageId: true });
  if (!chat) return;
  const payload = env.payload;
  const messageId = isObject(payload) && typeof payload.message_id === 'string' ? payload.message_id : '';
  if (!isObject(payload) || messageId === '') {
    sendError(ctx, session, env, 'bad_request', 'a streaming event needs payload.message_id');
    return;
  }
  const event = env.event as string;
  const frame = {
    ...chatFrameHead(ctx, env, chat, event, senderOf(session), session.deviceId),
    payload: relayPayload(event, payload, messageId),
  };
  const text = JSON.stringify(frame);
  if (utf8Bytes(text) + STAMP_RESERVE_BYTES > ctx.settings.max_produce_bytes) {
    sendError(ctx, session, env, 'message_too_large', `marshaled envelope is ${utf8Bytes(text)} bytes, max ${ctx.settings.max_produce_bytes} bytes`);
    return;
  }
  const origin = originOf(session);
  relayToChat(ctx, chat, origin, text, { siblings: true });
  merge(ctx, session, chat, origin, event, frame.payload, env);
}

function merge(ctx: HubContext, session: Session, chat: HubChat, origin: Origin, event: string, payload: Record<string, unknown>, env: Envelope): void {
  const messageId = payload.message_id as string;
  const now = ctx.now();
  if (event === 'message.failed') {
    ctx.streams.take(chat.id, origin.user_id, messageId);
    return;
  }
  if (event !== 'message.done') {
    const buffer = ctx.streams.touch(chat.id, origin.user_id, session.deviceId, messageId, now);
    if (event === 'message.created') buffer.message_mode = payload.message_mode as string;
    if (event === 'message.add') {
      buffer.fragments = (payload.fragments as Record<string, unknown>[]).map(({ delta: _delta, ...f }) => f);
      if (typeof payload.sequence === 'number') buffer.sequence = payload.sequence;
    }
    return;
  }
  // A done whose earlier frames never arrived still materializes, from its own fragments.
  const buffer =
    ctx.streams.take(chat.id, origin.user_id, messageId) ??
    (ctx.streams.touch(chat.id, origin.user_id, session.deviceId, messageId, now), ctx.streams.take(chat.id, origin.user_id, messageId)!);
  const finalFragments = payload.fragments as Record<string, unknown>[];
  if (finalFragments.length > 0) buffer.fragments = finalFragments;
  const materialize = (): void => materializeMerged(ctx, chat.id, origin, buffer, session.user!.nick_name, env);
  if (ctx.settings.stream_merged_delay_ms > 0) later(ctx, ctx.settings.stream_merged_delay_ms, materialize);
  else materialize();
}

function materializeMerged(ctx: HubContext, chatId: string, origin: Origin, buffer: StreamBuffer, nickName: string, env: Envelope): void {
  const chat = ctx.directory.chat(chatId);
  if (!chat) return;
  const merged = ctx.settings.stream_merged;
  const frame = {
    ...chatFrameHead(ctx, env, chat, 'message.reply', { id: origin.user_id, type: 'direct', nick_name: nickName }, origin.device_id),
    payload: {
      message_id: buffer.message_id,
      message_mode: buffer.message_mode,
      message: { body: { fragments: buffer.fragments }, context: { mentions: [], reply: null }, streaming: staticStreaming() },
      ...(merged ? { stream_merged: true } : {}),
    },
  };
  if (utf8Bytes(JSON.stringify(frame)) + STAMP_RESERVE_BYTES > ctx.settings.max_produce_bytes) {
    ctx.log('warn', 'merged stream reply exceeds the produce cap; not stored', { chat: chat.id, message_id: buffer.message_id });
    return;
  }
  fanoutRow(ctx, chat, origin, { message_id: buffer.message_id, event: 'message.reply', kind: 'message', chat_id: chat.id, stream_merged: merged, frame }, !merged);
}
