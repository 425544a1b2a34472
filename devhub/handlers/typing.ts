/**
 * `typing.update` (guide §9.1): a level relayed to every member but the sender (none of the sender's devices), with
 * `sender` stamped and `emitted_at` restamped. The hub keeps no typing state and applies no expiry. Every refusal is
 * silent (§14.5).
 */
import { gateChatUplink, senderOf } from '../chat-gate';
import type { HubContext } from '../context';
import { isObject, type Envelope } from '../envelope';
import { originOf, relayToChat } from '../fanout';
import { chatFrameHead } from '../chat-frame';
import type { Session } from '../session';

export function onTyping(ctx: HubContext, session: Session, env: Envelope): void {
  const chat = gateChatUplink(ctx, session, env, { checkMessageId: false, silent: true });
  const payload = env.payload;
  if (!chat || !isObject(payload) || typeof payload.is_typing !== 'boolean') return;
  const text = JSON.stringify({
    ...chatFrameHead(ctx, env, chat, 'typing.update', senderOf(session), undefined),
    payload: { is_typing: payload.is_typing },
  });
  relayToChat(ctx, chat, originOf(session), text, { siblings: false });
}
