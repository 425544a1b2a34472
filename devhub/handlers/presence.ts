/**
 * `presence.subscribe` / `presence.unsubscribe` (guide §9.2). Subscribe answers with a `presence.snapshot` echoing the
 * trace id; past the per-connection cap the snapshot still comes but the registry does not grow. A malformed payload,
 * an id without a legal prefix, or (with the visibility gate on) a user sharing no chat is a silent no-op with no
 * snapshot. Unsubscribe never answers.
 */
import type { HubContext } from '../context';
import { isObject, PROTOCOL_VERSION, type Envelope } from '../envelope';
import { traceOf } from '../replies';
import type { Session } from '../session';

function targetOf(ctx: HubContext, env: Envelope): string | undefined {
  const payload = env.payload;
  if (!isObject(payload) || typeof payload.user_id !== 'string' || payload.user_id === '') return undefined;
  const id = payload.user_id;
  const prefixes = ctx.settings.presence_user_id_prefixes;
  return prefixes.length === 0 || prefixes.some((p) => id.startsWith(p)) ? id : undefined;
}

export function onPresenceSubscribe(ctx: HubContext, session: Session, env: Envelope): void {
  const target = targetOf(ctx, env);
  if (target === undefined) return;
  const self = session.user!.id;
  if (ctx.settings.presence_visibility_gate && target !== self && !ctx.directory.sharesChat(self, target)) return;
  if (session.presence.has(target) || session.presence.size < ctx.settings.presence_max_subscriptions) {
    ctx.presence.subscribe(session, target);
  }
  const text = JSON.stringify({
    version: PROTOCOL_VERSION,
    event: 'presence.snapshot',
    trace_id: traceOf(env),
    emitted_at: ctx.now(),
    payload: ctx.presence.payload(target, ctx.sessions.online(target)),
  });
  session.sendReply(text, ctx.settings.send_buffer_max_bytes);
}

export function onPresenceUnsubscribe(ctx: HubContext, session: Session, env: Envelope): void {
  const target = targetOf(ctx, env);
  if (target !== undefined) ctx.presence.unsubscribe(session, target);
}
