/**
 * Fanout (guide §5): a chat event reaches every member except the sender, plus the sender's own other devices when
 * the sending device advertised `multi_device`. Durable events become inbox rows (the delivery pump then carries them
 * to whoever is connected); ephemeral ones go straight to the connected sessions.
 */
import type { HubContext } from './context';
import type { HubChat } from './directory';
import type { InboxRow, NewRow } from './inbox';
import type { Session } from './session';

export interface Origin {
  user_id: string;
  device_id: string;
  multi_device: boolean;
}

export function originOf(session: Session): Origin {
  return { user_id: session.user!.id, device_id: session.deviceId, multi_device: session.has('multi_device') };
}

export function recipientsOf(chat: HubChat, origin: Origin): string[] {
  const out = [...chat.members].filter((m) => m !== origin.user_id);
  // Without multi_device the legacy no-self-fanout holds: the sender's inbox gets no copy at all.
  if (origin.multi_device) out.push(origin.user_id);
  return out;
}

/**
 * Writes one row per recipient. `seenLive` marks the row as already seen by every connection online now (the merged
 * reply of a stream whose frames they just watched), so only a later replay delivers it.
 */
export function fanoutRow(
  ctx: HubContext,
  chat: HubChat,
  origin: Origin,
  row: Omit<NewRow, 'origin_user_id' | 'origin_device_id' | 'live_skip' | 'target_device_id'>,
  seenLive = false,
): InboxRow[] {
  return recipientsOf(chat, origin).map((userId) =>
    ctx.inbox.upsert(userId, {
      ...row,
      origin_user_id: origin.user_id,
      origin_device_id: origin.device_id,
      target_device_id: undefined,
      live_skip: seenLive ? new Set(ctx.sessions.ofUser(userId).map((s) => s.id)) : undefined,
    }),
  );
}

/** Ephemeral relay to the chat: members but the sender, and (multi_device) the sender's other devices. */
export function relayToChat(
  ctx: HubContext,
  chat: HubChat,
  origin: Origin,
  text: string,
  options: { siblings: boolean; capability?: Parameters<Session['has']>[0] },
): number {
  let reached = 0;
  for (const userId of chat.members) {
    const own = userId === origin.user_id;
    if (own && !(options.siblings && origin.multi_device)) continue;
    for (const session of ctx.sessions.ofUser(userId)) {
      if (own && session.deviceId === origin.device_id) continue;
      if (options.capability && !session.has(options.capability)) continue;
      if (session.sendEphemeral(text, ctx.settings.send_buffer_max_bytes)) reached++;
    }
  }
  return reached;
}
