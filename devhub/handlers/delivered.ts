/**
 * `message.delivered` receipts (guide §14.4): routed by `to.id` (the original sender) to that user's devices that
 * advertised `delivery_receipt`. Ephemeral: never stored, dropped when nobody eligible is online. No `to.id`, no route.
 */
import { senderOf } from '../chat-gate';
import type { HubContext } from '../context';
import { idField, isObject, PROTOCOL_VERSION, type Envelope } from '../envelope';
import { traceOf } from '../replies';
import type { Session } from '../session';

export function onDelivered(ctx: HubContext, session: Session, env: Envelope): void {
  const to = env.to;
  const target = isObject(to) ? idField(to, 'id') : undefined;
  const payload = env.payload;
  if (target === undefined || !isObject(payload)) return;
  const frame = {
    version: PROTOCOL_VERSION,
    event: 'message.delivered',
    trace_id: traceOf(env),
    emitted_at: ctx.now(),
    ...(typeof env.chat_id === 'string' && env.chat_id !== '' ? { chat_id: env.chat_id } : {}),
    to,
    sender: senderOf(session),
    payload: {
      message_id: typeof payload.message_id === 'string' ? payload.message_id : '',
      ...(typeof payload.delivered_at === 'number' ? { delivered_at: payload.delivered_at } : {}),
    },
  };
  const text = JSON.stringify(frame);
  for (const recipient of ctx.sessions.ofUser(target)) {
    if (recipient !== session && recipient.has('delivery_receipt')) recipient.sendEphemeral(text, ctx.settings.send_buffer_max_bytes);
  }
}
