/**
 * `message.read` (guide §9.7): stores the reader's watermark for the chat (MAX-guarded) and echoes it to the reader's
 * other devices that advertised `multi_device` — nobody else ever sees it. Malformed uplinks, and watermarks for a
 * chat the reader is not in, are dropped without a word.
 */
import { senderOf } from '../chat-gate';
import type { HubContext } from '../context';
import { isObject, PROTOCOL_VERSION, type Envelope } from '../envelope';
import { traceOf } from '../replies';
import type { Session } from '../session';

export function onRead(ctx: HubContext, session: Session, env: Envelope): void {
  const chatId = env.chat_id;
  const payload = env.payload;
  if (typeof chatId !== 'string' || chatId === '' || !isObject(payload)) return;
  const mark = payload.last_read_emitted_at;
  if (typeof mark !== 'number' || !Number.isSafeInteger(mark) || mark <= 0) return;
  const user = session.user!.id;
  if (!ctx.directory.chat(chatId)?.members.has(user)) return;
  if (!ctx.watermarks.set(user, chatId, mark, ctx.now())) return;
  const text = JSON.stringify({
    version: PROTOCOL_VERSION,
    event: 'message.read',
    trace_id: traceOf(env),
    emitted_at: ctx.now(),
    chat_id: chatId,
    sender: senderOf(session),
    payload: { last_read_emitted_at: mark },
  });
  for (const sibling of ctx.sessions.ofUser(user)) {
    if (sibling !== session && sibling.has('multi_device')) sibling.sendEphemeral(text, ctx.settings.send_buffer_max_bytes);
  }
}
