/** Materialized messages: the `message.send` and `message.reply` downlinks. */
import { EVENT, uplink } from '../../envelope';
import { HubError } from '../../errors';
import type { InboundMessage } from '../../events';
import { joinText, parseFragments } from '../../fragments';
import { recordInbox } from '../inbox-record';
import { id, isObject, str } from '../../json';
import { mentionsUser, parseMentions } from '../../mentions';
import { normalizeMode } from '../stream-assembler';
import type { FrameContext } from './context';

/**
 * `message.send` / `message.reply` downlinks (guide §7.3, §7.4, §11.7): tolerant mapping, self-echo filtering,
 * upsert by `message_id` with the `stream_merged` exception, and a delivery receipt for messages from others
 * (replay included, §14.4). A frame whose payload cannot be a message throws, and the receive path quarantines it.
 * A message that is reported goes through the inbound persisters first, inside the same savepoint.
 */
export const handleMessageSend = (ctx: FrameContext): void => handleMaterialized(ctx, 'message.send');
export const handleMessageReply = (ctx: FrameContext): void => handleMaterialized(ctx, 'message.reply');

function handleMaterialized(ctx: FrameContext, event: 'message.send' | 'message.reply'): void {
  const { frame } = ctx;
  if (!frame.payloadValid) throw new HubError('BAD_FRAME', `${event} payload is not an object`);
  const messageId = id(frame.payload.message_id);
  if (messageId === undefined) throw new HubError('BAD_FRAME', `${event} has no payload.message_id`);
  const message = frame.payload.message;
  if (!isObject(message)) throw new HubError('BAD_FRAME', `${event} payload.message is not an object`);
  if (message.body !== undefined && message.body !== null && !isObject(message.body)) throw new HubError('BAD_FRAME', `${event} payload.message.body is not an object`);
  if (ctx.isOwnEcho) return;

  const body = isObject(message.body) ? message.body : {};
  const context = isObject(message.context) ? message.context : {};
  const { fragments } = parseFragments(body.fragments);
  const inline = fragments.filter((f) => f.kind === 'mention' && f.user_id).map((f) => ({ userId: f.user_id as string, display: f.display }));
  const { mentions } = parseMentions(context.mentions);
  const reply = isObject(context.reply) ? context.reply : null;
  const sender = frame.sender ?? { id: '', type: '', nickName: undefined };
  const mode = normalizeMode(frame.payload.message_mode);
  const streamMerged = frame.payload.stream_merged === true;
  const chatId = frame.chatId ?? '';

  const inbound: InboundMessage = {
    event,
    messageId,
    chatId,
    chatType: frame.chatType,
    sender,
    to: frame.to,
    originDeviceId: frame.originDeviceId,
    fromSelf: ctx.fromSelf,
    mode,
    isNormalMode: mode === 'normal',
    fragments,
    text: joinText(fragments),
    mentions,
    mentionsMe: mentionsUser(mentions, ctx.userId) || mentionsUser(inline, ctx.userId),
    reply,
    replyToMessageId: reply ? str(reply.reply_to_msg_id) : undefined,
    streamMerged,
    replay: ctx.replay,
    update: false,
    emittedAt: frame.emittedAt,
    traceId: frame.traceId,
    seq: frame.seq,
    dseq: frame.dseq,
  };

  const outcome = recordInbox(
    ctx.services.store,
    {
      messageId,
      chatId,
      event,
      senderId: sender.id,
      provisional: streamMerged,
      content: { event, chatId, sender: sender.id, mode, body: body.fragments ?? null, context },
      body: { ...inbound, replay: undefined, update: undefined },
    },
    ctx.now,
    ctx.services.inboxBodyMaxBytes,
  );
  if (outcome === 'inserted' || outcome === 'updated') {
    const reported: InboundMessage = { ...inbound, update: outcome === 'updated' };
    // Inside this frame's savepoint: the consumers' rows commit with the inbox row, or roll back with it.
    const { persisters, store } = ctx.services;
    if (persisters.size > 0) persisters.run(reported, { store, afterCommit: (fn) => ctx.later(fn) });
    ctx.emit('message', reported);
  }

  // A receipt says "this device received it"; duplicates are harmless, and the sender may have missed the first.
  if (!ctx.fromSelf && sender.id !== '') {
    ctx.reply(
      uplink(EVENT.delivered, `dlv-${messageId}`, ctx.now, { message_id: messageId, delivered_at: ctx.now }, {
        chat_id: frame.chatId,
        to: { id: sender.id, type: 'direct' },
      }),
    );
  }
}
