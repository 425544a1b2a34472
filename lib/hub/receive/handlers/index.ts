/**
 * The downlink dispatch table: one handler per envelope type. Events absent from it go to `handleUnknown`.
 * Handshake frames never reach it (the session consumes them); a late one is treated as unknown and tolerated.
 */
import { EVENT } from '../../envelope';
import type { Handler } from './context';
import { handleHistoryTransit, handleHistoryTruncated } from './history';
import { handleMessageReply, handleMessageSend } from './messages';
import { handleMessageDelivered, handleMessageReaction, handleMessageRead } from './receipts';
import { handleMessageAck, handleMessageError } from './send-results';
import { handleDeprecatedOffline, handlePong, handleReplayDone, handleSyncMark } from './session-control';
import { handleChatMetadataInvalidated, handleNotifySignal, handlePermissionRequest, handlePermissionResolved, handlePresence, handleTypingUpdate } from './signals';
import { handleMessageAdd, handleMessageCreated, handleMessageDone, handleMessageFailed } from './streams';

export { FrameContext, type Handler, type ReceiveServices } from './context';
export { frameEvent, handleUnknown } from './session-control';
export { refetchFor } from './signals';

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
  [EVENT.presenceSnapshot]: handlePresence,
  [EVENT.presenceUpdate]: handlePresence,
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
