/**
 * The two replies of the send path (guide §7.2, §14.3): `message.ack` and `message.error`, both built from the
 * uplink's own `trace_id` / `chat_id` / `to` and nothing else (no `sender`, no `chat_type`). Acks pass through the
 * ack faults (withhold, delay).
 */
import { later, type HubContext } from './context';
import { isObject, PROTOCOL_VERSION, type Envelope } from './envelope';
import type { Session } from './session';

export type ErrorCode =
  | 'chat_not_found'
  | 'capability_missing'
  | 'not_member'
  | 'unsupported_version'
  | 'bad_request'
  | 'message_too_large'
  | 'message_id_too_long';

function routingEcho(env: Envelope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof env.chat_id === 'string' && env.chat_id !== '') out.chat_id = env.chat_id;
  if (isObject(env.to)) out.to = env.to;
  return out;
}

export function traceOf(env: Envelope): string {
  return typeof env.trace_id === 'string' ? env.trace_id : '';
}

/** The uplink's own `payload.message_id` when it set a non-empty string. */
export function uplinkMessageId(env: Envelope): string | undefined {
  const payload = env.payload;
  return isObject(payload) && typeof payload.message_id === 'string' && payload.message_id !== '' ? payload.message_id : undefined;
}

export function sendError(ctx: HubContext, session: Session, env: Envelope, code: ErrorCode, reason: string): void {
  const now = ctx.now();
  const messageId = uplinkMessageId(env);
  const payload: Record<string, unknown> = {};
  if (messageId !== undefined) payload.message_id = messageId;
  payload.code = code;
  if (reason !== '') payload.reason = reason;
  payload.rejected_at = now;
  const frame = { version: PROTOCOL_VERSION, event: 'message.error', trace_id: traceOf(env), emitted_at: now, ...routingEcho(env), payload };
  ctx.log('debug', 'uplink refused', { connection: session.id, event: env.event, code });
  session.sendReply(JSON.stringify(frame), ctx.settings.send_buffer_max_bytes);
}

export function sendAck(ctx: HubContext, session: Session, env: Envelope, messageId: string): void {
  const build = (): string => {
    const now = ctx.now();
    return JSON.stringify({
      version: PROTOCOL_VERSION,
      event: 'message.ack',
      trace_id: traceOf(env),
      emitted_at: now,
      ...routingEcho(env),
      payload: { message_id: messageId, accepted_at: now },
    });
  };
  const action = ctx.faults.ackAction(session.user!.id, session.deviceId);
  if (action.kind === 'withhold') return;
  if (action.kind === 'delay') {
    later(ctx, action.ms, () => session.sendReply(build(), ctx.settings.send_buffer_max_bytes));
    return;
  }
  session.sendReply(build(), ctx.settings.send_buffer_max_bytes);
}
