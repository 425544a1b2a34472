/**
 * The downlink dispatch table: one handler per envelope type. Events absent from it go to `handleUnknown`.
 * Handshake frames never reach it (the session consumes them); a late one is treated as unknown and tolerated.
 */
import { EVENT } from '../envelope';
import { handleChatMetadataInvalidated } from './chat-metadata-invalidated';
import type { Handler } from './context';
import { handleDeprecatedOffline } from './deprecated-offline';
import { handleHistoryTransit } from './history-transit';
import { handleHistoryTruncated } from './history-truncated';
import { handleMessageAck } from './message-ack';
import { handleMessageAdd } from './message-add';
import { handleMessageCreated } from './message-created';
import { handleMessageDelivered } from './message-delivered';
import { handleMessageDone } from './message-done';
import { handleMessageError } from './message-error';
import { handleMessageFailed } from './message-failed';
import { handleMessageReaction } from './message-reaction';
import { handleMessageRead } from './message-read';
import { handleMessageReply } from './message-reply';
import { handleMessageSend } from './message-send';
import { handleNotifySignal } from './notify-signal';
import { handlePermissionRequest } from './permission-request';
import { handlePermissionResolved } from './permission-resolved';
import { handlePong } from './pong';
import { handlePresenceSnapshot } from './presence-snapshot';
import { handlePresenceUpdate } from './presence-update';
import { handleReplayDone } from './replay-done';
import { handleSyncMark } from './sync-mark';
import { handleTypingUpdate } from './typing-update';

export { FrameContext, type Handler, type ReceiveServices, type SendSettlement } from './context';
export { handleUnknown } from './unknown';

export const HANDLERS: Readonly<Record<string, Handler>> = Object.freeze({
  [EVENT.send]: handleMessageSend,
  [EVENT.reply]: handleMessageReply,
  [EVENT.ack]: handleMessageAck,
  [EVENT.error]: handleMessageError,
  [EVENT.delivered]: handleMessageDelivered,
  [EVENT.reaction]: handleMessageReaction,
  [EVENT.read]: handleMessageRead,
  [EVENT.historyTransit]: handleHistoryTransit,
  [EVENT.created]: handleMessageCreated,
  [EVENT.add]: handleMessageAdd,
  [EVENT.done]: handleMessageDone,
  [EVENT.failed]: handleMessageFailed,
  [EVENT.typing]: handleTypingUpdate,
  [EVENT.presenceSnapshot]: handlePresenceSnapshot,
  [EVENT.presenceUpdate]: handlePresenceUpdate,
  [EVENT.chatMetadataInvalidated]: handleChatMetadataInvalidated,
  [EVENT.notifySignal]: handleNotifySignal,
  [EVENT.permissionRequest]: handlePermissionRequest,
  [EVENT.permissionResolved]: handlePermissionResolved,
  [EVENT.replayDone]: handleReplayDone,
  [EVENT.syncMark]: handleSyncMark,
  [EVENT.historyTruncated]: handleHistoryTruncated,
  [EVENT.pong]: handlePong,
  'offline.batch': handleDeprecatedOffline,
  'offline.done': handleDeprecatedOffline,
});

/**
 * Events whose handler never writes to the store (it only queues effects): they need no savepoint of their own,
 * since a throw leaves nothing to roll back. `message.ack` is most of what a busy sender receives.
 */
export const STORE_FREE_EVENTS: ReadonlySet<string> = new Set([EVENT.ack]);
