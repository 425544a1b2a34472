/**
 * Where read watermarks live in the store: what this device knows is read (`hub.read:<chat>`) and what the hub
 * is known to hold (`hub.read-sent:<chat>`). Both only move forward; a reconnect re-sends every chat where the
 * first is ahead of the second, so a watermark set while offline (or just before a crash) still reaches the hub.
 */
export const READ_PREFIX = 'hub.read:';
export const READ_SENT_PREFIX = 'hub.read-sent:';

export function readCursorKey(chatId: string): string {
  return READ_PREFIX + chatId;
}

export function readSentKey(chatId: string): string {
  return READ_SENT_PREFIX + chatId;
}
