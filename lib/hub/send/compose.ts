/**
 * Turns what a caller wants to send into the exact uplink (guide §7.1, §7.4, §9.6), checking everything the hub
 * would refuse later or silently drop: the chat id rule, the message id format, fragments, mentions, emoji bytes.
 */
import { utf8Length } from '../../bytes';
import { EVENT, messagePayload, PROTOCOL_VERSION, type Peer } from '../envelope';
import { HubError } from '../errors';
import { checkOutgoingFragments, textFragment } from '../fragments';
import { checkChatId, checkMessageId, type ChatIdRule } from '../ids';
import { isObject, type JsonObject } from '../json';
import { outgoingMentions } from '../mentions';
import type { SendTag } from '../send-tag';

export interface ReplyTarget {
  /** The `message_id` replied to. */
  messageId: string;
  /** The inline quote: the original sender and a trimmed copy of the body. */
  preview?: { id?: string; nickName?: string; fragments?: JsonObject[] };
}

export interface SendInput {
  chatId: string;
  /** Shorthand for one text fragment (placed before `fragments` when both are given). */
  text?: string;
  fragments?: JsonObject[];
  /** `payload.message_mode`; default `normal`. */
  mode?: string;
  /** User ids or `{ user_id, display }` objects. */
  mentions?: unknown[];
  replyTo?: ReplyTarget;
  /** Force `message.reply` (with or without `replyTo`), e.g. the finalize reply of a stream. */
  event?: 'message.send' | 'message.reply';
  /** UI context, echoed to recipients; never used for routing. */
  to?: Peer;
  /** Your own `msg-<ULID>` id (for example derived from a mesh message). Default: a fresh one. */
  messageId?: string;
  /** Kept with the send in the outbox (never sent) and echoed in `queued`, `ack` and `rejected`; at most 1 KiB of JSON. */
  tag?: SendTag;
}

export interface ReactInput {
  chatId: string;
  targetMessageId: string;
  emoji: string;
  removed?: boolean;
  to?: Peer;
  /** As `SendInput.tag`. */
  tag?: SendTag;
}

export interface Composed {
  event: string;
  chatId: string;
  messageId: string;
  /** Without `emitted_at`, which each attempt stamps. */
  frame: JsonObject;
}

function checkPeer(to: unknown): Peer | undefined {
  if (to === undefined) return undefined;
  if (!isObject(to) || typeof to.id !== 'string' || typeof to.type !== 'string') throw new HubError('BAD_ARGUMENT', 'to must be { id: string, type: string }');
  return { id: to.id, type: to.type };
}

/** A durable uplink without `emitted_at`, which each attempt stamps (same keys, in the same order, as `uplink`). */
function unstamped(event: string, traceId: string, payload: JsonObject, chatId: string, to: Peer | undefined): JsonObject {
  const frame: JsonObject = { version: PROTOCOL_VERSION, event, trace_id: traceId, payload, chat_id: chatId };
  if (to !== undefined) frame.to = to;
  return frame;
}

export function composeMessage(input: SendInput, rule: ChatIdRule, mint: () => string, traceId: string): Composed {
  if (!isObject(input)) throw new HubError('BAD_ARGUMENT', 'send needs an object');
  const chatId = checkChatId(input.chatId, rule);
  const parts: JsonObject[] = [];
  if (input.text !== undefined) {
    if (typeof input.text !== 'string') throw new HubError('BAD_ARGUMENT', 'text must be a string');
    parts.push(textFragment(input.text));
  }
  if (input.fragments !== undefined) parts.push(...checkOutgoingFragments(input.fragments));
  if (parts.length === 0) throw new HubError('BAD_ARGUMENT', 'a message needs text or fragments');
  const mode = input.mode ?? 'normal';
  if (typeof mode !== 'string') throw new HubError('BAD_ARGUMENT', 'mode must be a string');
  const messageId = input.messageId === undefined ? mint() : checkMessageId(input.messageId);
  let reply: JsonObject | null = null;
  if (input.replyTo !== undefined) {
    if (!isObject(input.replyTo) || typeof input.replyTo.messageId !== 'string' || input.replyTo.messageId === '') {
      throw new HubError('BAD_ARGUMENT', 'replyTo needs the messageId replied to');
    }
    reply = { reply_to_msg_id: input.replyTo.messageId };
    const p = input.replyTo.preview;
    if (p !== undefined) {
      reply.reply_preview = {
        id: p.id ?? '',
        nick_name: p.nickName ?? '',
        fragments: p.fragments === undefined ? [] : checkOutgoingFragments(p.fragments),
      };
    }
  }
  const event = input.event ?? (reply ? EVENT.reply : EVENT.send);
  if (event !== EVENT.send && event !== EVENT.reply) throw new HubError('BAD_ARGUMENT', `event must be message.send or message.reply, got ${String(event)}`);
  const payload = messagePayload({ messageId, mode, fragments: parts, mentions: outgoingMentions(input.mentions), reply });
  return { event, chatId, messageId, frame: unstamped(event, traceId, payload, chatId, checkPeer(input.to)) };
}

/** §9.6: only `target_message_id`, `emoji` and `removed`; the hub stamps the slot id and the reactor. */
export function composeReaction(input: ReactInput, rule: ChatIdRule, userId: string, traceId: string): Composed {
  if (!isObject(input)) throw new HubError('BAD_ARGUMENT', 'react needs an object');
  const chatId = checkChatId(input.chatId, rule);
  if (typeof input.targetMessageId !== 'string' || input.targetMessageId === '') throw new HubError('BAD_ARGUMENT', 'targetMessageId is required');
  const removed = input.removed === true;
  const emoji = input.emoji ?? '';
  if (typeof emoji !== 'string') throw new HubError('BAD_EMOJI', 'emoji must be a string');
  if (!removed || emoji !== '') {
    if (emoji === '') throw new HubError('BAD_EMOJI', 'emoji must not be empty');
    if (Buffer.from(emoji, 'utf8').toString('utf8') !== emoji) throw new HubError('BAD_EMOJI', 'emoji must be valid UTF-8 (no lone surrogates)');
    if (utf8Length(emoji) > 64) throw new HubError('BAD_EMOJI', `emoji must be at most 64 bytes, got ${utf8Length(emoji)}`);
  }
  const frame = unstamped(EVENT.reaction, traceId, { target_message_id: input.targetMessageId, emoji, removed }, chatId, checkPeer(input.to));
  return { event: EVENT.reaction, chatId, messageId: `rxn:${input.targetMessageId}:${userId}`, frame };
}
