/**
 * `@clawling/node-red-mesh/hub`: the ClawlingChat Message Hub client (protocol v2). See docs/hub.md.
 *
 *   const client = new HubClient({ url, token, userId, deviceId, store: openStore(file) });
 *   client.on('message', (m) => …).on('state', (s) => …);
 *   client.start();
 *   await client.send({ chatId, text: 'hi' });
 */
export { HubClient, DEVICE_ID_KEY, HISTORY_QUEUE, type OpenStreamInput, type HistoryTransitInput, type HubClientStats } from './client';
export type { HubClientOptions, HubLogger, HubTlsOptions, TokenSource } from './options';
export { HubError, type HubErrorCode } from './errors';
export type * from './events';
export { systemClock, ManualClock, type Clock, type TimerHandle } from '../clock';
export { backoffDelay, resolveBackoffPolicy, raisesFloor, DEFAULT_BACKOFF, type BackoffPolicy, type CloseCause } from './backoff-policy';
export { capabilitiesFor, CAPABILITY_NAMES, type Capabilities, type CapabilityName, type Reliability } from './capabilities';
export { MESSAGE_ID_PATTERN, CNV_CHAT_ID_PATTERN, isMessageId, checkChatId, checkMessageId, createIdMinter, type ChatIdRule, type IdMinter } from './ids';
export { EVENT, PROTOCOL_VERSION, type EventName, type Peer, type Sender, type InboundFrame } from './envelope';
export { parseFrame, type ParsedFrame } from './parse-frame';
export { parseFragments, joinText, KNOWN_FRAGMENT_KINDS, type Fragment } from './fragments';
export { parseMentions, mentionsUser, MENTION_ALL, type Mention } from './mentions';
export { PRESENCE_LIMIT } from './presence';
export { SEND_TAG_MAX_BYTES, type SendTag } from './send-tag';
export { StreamWriter, type FinalizeInput, type StreamPhase } from './send/stream-writer';
export type { SendInput, ReactInput, ReplyTarget } from './send/compose';
export type { OutboxEntry } from './send/outbox';
export { OUTBOX_QUEUE } from './send/outbox';
export { QUARANTINE_QUEUE } from './receive/receive-pipeline';
export { refetchFor } from './receive/handlers';
