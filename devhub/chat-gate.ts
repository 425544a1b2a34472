/**
 * The checks every chat uplink passes before anything fans out (guide §5, §7.6, §14.3, §14.5), in order:
 * an empty `chat_id` is dropped silently; an oversized client `message_id` is `message_id_too_long`; a chat id the
 * resolver cannot parse is `bad_request`; an unknown chat is `chat_not_found`; a sender outside it is `not_member`.
 */
import type { HubContext } from './context';
import type { HubChat } from './directory';
import { utf8Bytes, type Envelope } from './envelope';
import { sendError, uplinkMessageId } from './replies';
import type { Session } from './session';

const CNV_ID = /^cnv_[0-9A-HJKMNP-TV-Z]{26}$/;

export interface GateOptions {
  /** Whether the uplink's `payload.message_id` is the client's (not on reactions, where the hub overwrites it). */
  checkMessageId: boolean;
  /** Typing and the like fail silently instead of with `message.error`. */
  silent?: boolean;
}

export function chatIdWellFormed(ctx: HubContext, chatId: string): boolean {
  return ctx.settings.chat_id_format === 'any' || CNV_ID.test(chatId);
}

export function gateChatUplink(ctx: HubContext, session: Session, env: Envelope, options: GateOptions): HubChat | undefined {
  const chatId = env.chat_id;
  if (typeof chatId !== 'string' || chatId === '') return undefined;
  const fail = (code: Parameters<typeof sendError>[3], reason: string): undefined => {
    if (!options.silent) sendError(ctx, session, env, code, reason);
    return undefined;
  };
  if (options.checkMessageId) {
    const id = uplinkMessageId(env);
    const max = ctx.settings.max_message_id_bytes;
    if (id !== undefined && utf8Bytes(id) > max) {
      return fail('message_id_too_long', `message_id is ${utf8Bytes(id)} bytes, max ${max} bytes`);
    }
  }
  if (!chatIdWellFormed(ctx, chatId)) return fail('bad_request', `malformed chat_id ${JSON.stringify(chatId)}: not a conversation id`);
  const chat = ctx.directory.chat(chatId);
  if (!chat) return fail('chat_not_found', `chat ${chatId}: chat not found`);
  if (!chat.members.has(session.user!.id)) return fail('not_member', `user ${session.user!.id} is not a member of chat ${chatId}`);
  return chat;
}

/** The server-stamped `sender` (§4.1): always the authenticated identity, `type` always "direct". */
export function senderOf(session: Session): Record<string, unknown> {
  return { id: session.user!.id, type: 'direct', nick_name: session.user!.nick_name };
}
