/**
 * hub-out's input, read once: which action, for which chat, with what. This only picks values out of `msg`
 * (documented in the node's help) and checks their JavaScript types; whether a chat id, a message id, a fragment
 * or an emoji is acceptable is the client's decision, made when the request reaches it.
 */
import type { FinalizeInput, Peer, ReactInput, SendInput } from '../../lib/hub';
import { HubNodeError } from './errors';

export const HUB_OUT_ACTIONS = [
  'send',
  'reply',
  'react',
  'typing',
  'read',
  'subscribe',
  'unsubscribe',
  'stream-open',
  'stream-append',
  'stream-done',
  'stream-fail',
] as const;

export type HubOutAction = (typeof HUB_OUT_ACTIONS)[number];

export type OutRequest =
  | { action: 'send' | 'reply'; input: SendInput }
  | { action: 'react'; input: ReactInput }
  | { action: 'typing'; chatId: string; isTyping: boolean }
  | { action: 'read'; chatId: string; at: number }
  | { action: 'subscribe' | 'unsubscribe'; userIds: string[] }
  | { action: 'stream-open'; chatId: string; mode: string | undefined; messageId: string | undefined; to: Peer | undefined }
  | { action: 'stream-append'; stream: StreamRef; delta: string }
  | { action: 'stream-done'; stream: StreamRef; finalize: FinalizeInput | undefined }
  | { action: 'stream-fail'; stream: StreamRef };

/** A stream named by its id, or else the latest one this node opened in the chat. */
export interface StreamRef {
  streamId: string | undefined;
  chatId: string | undefined;
}

export interface OutDefaults {
  action: string;
  chatId: string;
}

type Msg = Record<string, unknown>;

const OFF = new Set<unknown>([false, 0, 'false', 'off', '0']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

function bad(message: string): never {
  throw new HubNodeError('BAD_INPUT', message);
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') bad(`${what} must be a string`);
  return value;
}

/** The incoming msg.hub (from hub-in), whose ids make "reply to / react to / mark read this" the default. */
function inbound(msg: Msg): Record<string, unknown> {
  return isObject(msg.hub) ? msg.hub : {};
}

export function isHubOutAction(value: unknown): value is HubOutAction {
  return typeof value === 'string' && (HUB_OUT_ACTIONS as readonly string[]).includes(value);
}

/** `msg.chat_id`, else the node's chat, else `msg.topic`. */
function chatOf(msg: Msg, defaults: OutDefaults, required: true): string;
function chatOf(msg: Msg, defaults: OutDefaults, required: false): string | undefined;
function chatOf(msg: Msg, defaults: OutDefaults, required: boolean): string | undefined {
  const chat = optionalString(msg.chat_id, 'msg.chat_id') ?? (defaults.chatId || undefined) ?? (typeof msg.topic === 'string' && msg.topic !== '' ? msg.topic : undefined);
  if (chat === undefined && required) bad('no chat: set msg.chat_id, the node\'s chat, or msg.topic');
  return chat;
}

function peer(value: unknown): Peer | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.type !== 'string') bad('msg.to must be { id: string, type: string }');
  return { id: value.id, type: value.type };
}

/** Text or fragments: a string (or number/boolean) is the text; an object may carry fragments, which then win. */
function content(payload: unknown, msg: Msg): Pick<SendInput, 'text' | 'fragments' | 'mentions' | 'mode'> {
  const mode = optionalString(msg.mode, 'msg.mode');
  const mentions = msg.mentions === undefined ? undefined : Array.isArray(msg.mentions) ? msg.mentions : bad('msg.mentions must be an array');
  if (typeof payload === 'string' || typeof payload === 'number' || typeof payload === 'boolean') return { text: String(payload), mode, mentions };
  if (!isObject(payload)) bad('msg.payload must be the text (a string) or an object with text or fragments');
  const fragments = payload.fragments;
  const useFragments = Array.isArray(fragments) && fragments.length > 0;
  const text = useFragments ? undefined : payload.text;
  if (text !== undefined && typeof text !== 'string') bad('msg.payload.text must be a string');
  if (!useFragments && text === undefined) bad('msg.payload needs text or a non-empty fragments array');
  const ownMentions = payload.mentions === undefined ? undefined : Array.isArray(payload.mentions) ? payload.mentions : bad('msg.payload.mentions must be an array');
  return {
    text,
    fragments: useFragments ? (fragments as SendInput['fragments']) : undefined,
    mentions: mentions ?? ownMentions,
    mode: mode ?? optionalString(payload.mode, 'msg.payload.mode'),
  };
}

function replyTarget(msg: Msg): SendInput['replyTo'] {
  const r = msg.reply_to;
  if (typeof r === 'string' && r !== '') return { messageId: r };
  if (isObject(r)) {
    const messageId = optionalString(r.message_id, 'msg.reply_to.message_id') ?? bad('msg.reply_to needs message_id');
    const p = r.preview;
    if (p === undefined) return { messageId };
    if (!isObject(p)) bad('msg.reply_to.preview must be an object');
    return {
      messageId,
      preview: {
        id: optionalString(p.id, 'msg.reply_to.preview.id'),
        nickName: optionalString(p.nick_name, 'msg.reply_to.preview.nick_name'),
        fragments: p.fragments === undefined ? undefined : Array.isArray(p.fragments) ? (p.fragments as SendInput['fragments']) : bad('msg.reply_to.preview.fragments must be an array'),
      },
    };
  }
  if (r !== undefined && r !== null && r !== '') bad('msg.reply_to must be a message id or { message_id, preview }');
  const hub = inbound(msg);
  if (typeof hub.message_id !== 'string' || hub.message_id === '') return undefined;
  const from = isObject(hub.sender) ? hub.sender : {};
  return {
    messageId: hub.message_id,
    preview: { id: typeof from.id === 'string' ? from.id : undefined, nickName: typeof from.nick_name === 'string' ? from.nick_name : undefined },
  };
}

function streamRef(msg: Msg, defaults: OutDefaults): StreamRef {
  return { streamId: optionalString(msg.stream_id, 'msg.stream_id'), chatId: chatOf(msg, defaults, false) };
}

function userIds(msg: Msg): string[] {
  const value = msg.payload;
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : bad('msg.payload must be a user id or an array of user ids');
  if (list.length === 0 || !list.every((u) => typeof u === 'string' && u !== '')) bad('msg.payload must hold non-empty user id strings');
  return list as string[];
}

export function parseOutRequest(msg: Msg, defaults: OutDefaults): OutRequest {
  const action = msg.action === undefined || msg.action === '' ? defaults.action || 'send' : msg.action;
  if (!isHubOutAction(action)) throw new HubNodeError('BAD_ACTION', `msg.action must be one of ${HUB_OUT_ACTIONS.join(', ')}; got ${JSON.stringify(action)}`);
  switch (action) {
    case 'send':
    case 'reply': {
      const input: SendInput = {
        chatId: chatOf(msg, defaults, true),
        ...content(msg.payload, msg),
        to: peer(msg.to),
        messageId: optionalString(msg.message_id, 'msg.message_id'),
      };
      if (action === 'reply') {
        input.replyTo = replyTarget(msg);
        if (!input.replyTo) bad('a reply needs msg.reply_to (or msg.hub.message_id from hub-in)');
      }
      return { action, input };
    }
    case 'react': {
      const p = msg.payload;
      const emoji = typeof p === 'string' ? p : isObject(p) ? p.emoji : undefined;
      if (emoji !== undefined && typeof emoji !== 'string') bad('the emoji must be a string');
      const removed = msg.removed === true || (isObject(p) && p.removed === true);
      const target =
        optionalString(msg.target_message_id, 'msg.target_message_id') ??
        (isObject(p) ? optionalString(p.target_message_id, 'msg.payload.target_message_id') : undefined) ??
        optionalString(inbound(msg).message_id, 'msg.hub.message_id') ??
        bad('a reaction needs msg.target_message_id (or msg.hub.message_id from hub-in)');
      return { action, input: { chatId: chatOf(msg, defaults, true), targetMessageId: target, emoji: emoji ?? '', removed, to: peer(msg.to) } };
    }
    case 'typing':
      return { action, chatId: chatOf(msg, defaults, true), isTyping: !OFF.has(msg.payload) };
    case 'read': {
      const p = msg.payload;
      const emitted = inbound(msg).emitted_at;
      const at = typeof p === 'number' ? p : typeof emitted === 'number' ? emitted : Date.now();
      return { action, chatId: chatOf(msg, defaults, true), at };
    }
    case 'subscribe':
    case 'unsubscribe':
      return { action, userIds: userIds(msg) };
    case 'stream-open': {
      const p = msg.payload;
      return {
        action,
        chatId: chatOf(msg, defaults, true),
        mode: optionalString(msg.mode, 'msg.mode') ?? (isObject(p) ? optionalString(p.mode, 'msg.payload.mode') : undefined),
        messageId: optionalString(msg.message_id, 'msg.message_id'),
        to: peer(msg.to),
      };
    }
    case 'stream-append': {
      const p = msg.payload;
      if (typeof p !== 'string' && typeof p !== 'number') bad('msg.payload must be the text to append');
      return { action, stream: streamRef(msg, defaults), delta: String(p) };
    }
    case 'stream-done': {
      const p = msg.payload;
      let finalize: FinalizeInput | undefined;
      if (msg.finalize !== false) {
        finalize = typeof p === 'string' && p !== '' ? { text: p } : isObject(p) ? content(p, msg) : {};
      }
      return { action, stream: streamRef(msg, defaults), finalize };
    }
    case 'stream-fail':
      return { action, stream: streamRef(msg, defaults) };
  }
}
