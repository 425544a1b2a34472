/**
 * `history.transit` (guide §11.4): sibling-device history transfer, routed by the sender's own user id to the one
 * device named in `target_device_id`, through the sender's inbox (an offline target catches up on replay). The frame
 * is relayed as written — the client's own `sender` survives — except `origin_device_id`, which the hub clears on
 * every uplink (the guide's "known gap", reproduced). Enforced capability: `history_sync`. No ack.
 */
import type { HubContext } from '../context';
import { idField, PROTOCOL_VERSION, STAMP_RESERVE_BYTES, utf8Bytes, type Envelope } from '../envelope';
import { sendError } from '../replies';
import type { Session } from '../session';

const SERVER_ONLY = new Set(['origin_device_id', 'chat_type', 'seq', 'dseq']);

export function onHistoryTransit(ctx: HubContext, session: Session, env: Envelope): void {
  if (!session.has('history_sync')) {
    sendError(ctx, session, env, 'capability_missing', 'history.transit requires capabilities.history_sync');
    return;
  }
  const target = idField(env, 'target_device_id');
  if (target === undefined) return;
  const frame: Record<string, unknown> = { version: PROTOCOL_VERSION };
  for (const [key, value] of Object.entries(env)) if (!SERVER_ONLY.has(key)) frame[key] = value;
  const size = utf8Bytes(JSON.stringify(frame)) + STAMP_RESERVE_BYTES;
  if (size > ctx.settings.max_produce_bytes) {
    sendError(ctx, session, env, 'message_too_large', `marshaled envelope is ${size} bytes, max ${ctx.settings.max_produce_bytes} bytes`);
    return;
  }
  const user = session.user!.id;
  ctx.inbox.upsert(user, {
    message_id: `transit:${ctx.ids.ulid()}`,
    event: 'history.transit',
    kind: 'transit',
    chat_id: undefined,
    origin_user_id: user,
    origin_device_id: session.deviceId,
    target_device_id: target,
    stream_merged: false,
    frame,
    live_skip: undefined,
  });
}
