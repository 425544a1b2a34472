/**
 * Uplink dispatch after `hello-ok`: parse, strip U+0000 (§7.1), record, check the envelope version (§14.3
 * `unsupported_version`, before anything else, for every event), then one handler per event name. Anything that is not
 * a JSON object, and any event name the hub does not know (an unsolicited `pong` included), is dropped silently (§14.5).
 */
import type { HubContext } from './context';
import { isObject, PROTOCOL_VERSION, stripNul, type Envelope } from './envelope';
import { onDelivered } from './handlers/delivered';
import { onCursorReset, onInert, onPing } from './handlers/control';
import { onHistoryTransit } from './handlers/history-transit';
import { onMessageSend } from './handlers/message-send';
import { onPresenceSubscribe, onPresenceUnsubscribe } from './handlers/presence';
import { onReaction } from './handlers/reaction';
import { onRead } from './handlers/read';
import { onStreamEvent } from './handlers/stream';
import { onTyping } from './handlers/typing';
import { onCursorAck } from './reliability-v1';
import { onSyncAck } from './reliability-v2';
import { sendError } from './replies';
import type { Session } from './session';

type Handler = (ctx: HubContext, session: Session, env: Envelope) => void;

const HANDLERS: Readonly<Record<string, Handler>> = {
  'message.send': onMessageSend,
  'message.reply': onMessageSend,
  'message.created': onStreamEvent,
  'message.add': onStreamEvent,
  'message.done': onStreamEvent,
  'message.failed': onStreamEvent,
  'message.delivered': onDelivered,
  'message.reaction': onReaction,
  'message.read': onRead,
  'typing.update': onTyping,
  'presence.subscribe': onPresenceSubscribe,
  'presence.unsubscribe': onPresenceUnsubscribe,
  'history.transit': onHistoryTransit,
  'message.cursor_ack': onCursorAck,
  'message.sync_ack': onSyncAck,
  'device.cursor.reset': onCursorReset,
  ping: onPing,
  'offline.ack': onInert,
};

export function routeUplink(ctx: HubContext, session: Session, text: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const env = isObject(parsed) ? (stripNul(parsed) as Envelope) : undefined;
  const event = env && typeof env.event === 'string' ? env.event : '';
  const received = { at: ctx.now(), connection_id: session.id, user_id: session.user!.id, device_id: session.deviceId, event, frame: env };
  ctx.received.push(received, text.length);
  ctx.events.emit('uplink', received);
  if (!env) return;
  if (env.version !== PROTOCOL_VERSION) {
    sendError(ctx, session, env, 'unsupported_version', `envelope version must be the string "2", got ${JSON.stringify(env.version) ?? 'nothing'}`);
    return;
  }
  const handler = Object.prototype.hasOwnProperty.call(HANDLERS, event) ? HANDLERS[event] : undefined;
  if (!handler) {
    ctx.log('debug', 'unknown uplink event dropped', { connection: session.id, event });
    return;
  }
  try {
    handler(ctx, session, env);
  } catch (err) {
    // A bug of ours must not take the connection down; the uplink is dropped and logged.
    ctx.log('error', 'uplink handler failed', { connection: session.id, event, error: (err as Error).message });
  }
}
