/**
 * `notify.signal` (guide §9.4): reliable, content-free, handled alike live and in replay. Deduplicated on
 * `event_id` (a bounded durable set); a `version` not above the last one for `(type, entity)` is reported as stale.
 * `conversation.*` signals (but `conversation.dissolved`) reopen send gates; `conversation.dissolved` gates typing.
 */
import { id, num, str } from '../json';
import type { FrameContext } from './context';

export function handleNotifySignal(ctx: FrameContext): void {
  const { frame, services } = ctx;
  const p = frame.payload;
  const type = str(p.type) ?? '';
  const entityId = str(p.entity_id) ?? '';
  const version = num(p.version);
  const coalesceKey = id(p.message_id);
  const eventId = id(p.event_id) ?? `${coalesceKey ?? `notify:${type}:${entityId}`}@${version ?? ''}`;
  if (!services.notifySeen.add(eventId, ctx.now)) return;
  const stale = version !== undefined && !services.store.kv.setMax(`hub.notify-version:${type}:${entityId}`, version);
  ctx.later(() => {
    if (type === 'conversation.dissolved') services.typingGate.close(entityId);
    else if (type.startsWith('conversation.')) {
      // The entity is normally the conversation; if it names no gated chat, any gated chat may be the one that moved.
      if (!services.gate.open(entityId)) services.gate.openAll();
    }
  });
  ctx.emit('notify', { type, entityId, version, eventId, coalesceKey, replay: ctx.replay, stale });
}
