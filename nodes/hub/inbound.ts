/**
 * What hub-in emits for each kind of client event: `msg.topic` (the chat id, where there is one), `msg.payload`
 * (the content) and `msg.hub` (envelope details). Names are snake_case as on the wire and in every other `msg`
 * property of these nodes; objects that came from the wire (an unknown event's payload, a permission target) pass
 * as they are.
 */
import type {
  ChatMetadataEvent,
  DeliveryReceipt,
  FrameEvent,
  HubClientEvents,
  HubStatus,
  InboundMessage,
  Mention,
  NotifyEvent,
  PermissionEvent,
  PresenceEvent,
  ReactionEvent,
  ReadEvent,
  Sender,
  StreamEvent,
  TypingEvent,
} from '../../lib/hub';

/** The event types hub-in offers, each tied to one client event. */
export const HUB_IN_EVENTS = {
  message: 'message',
  stream: 'stream',
  reaction: 'reaction',
  read: 'read',
  delivered: 'delivered',
  typing: 'typing',
  presence: 'presence',
  'chat-metadata': 'chat-metadata',
  notify: 'notify',
  permission: 'permission',
  unknown: 'unknown',
  state: 'state',
} as const satisfies Record<string, keyof HubClientEvents & string>;

export type HubInEvent = keyof typeof HUB_IN_EVENTS;

export function isHubInEvent(value: unknown): value is HubInEvent {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(HUB_IN_EVENTS, value);
}

export interface InboundParts {
  topic: string;
  payload: unknown;
  hub: Record<string, unknown>;
  /** The chat the event belongs to (for the chat filter); undefined for events that belong to none. */
  chatId: string | undefined;
  /** For the optional skips. */
  normalMode: boolean;
  fromSelf: boolean;
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Shallow camelCase → snake_case of an object the client built; undefined values are left out. */
function snakeKeys(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[snake(key)] = v;
  return out;
}

const sender = (s: Sender | undefined): Record<string, unknown> | undefined => (s ? snakeKeys(s) : undefined);
const mentions = (list: readonly Mention[]): Record<string, unknown>[] => list.map((m) => snakeKeys(m));

function parts(topic: string | undefined, payload: unknown, hub: Record<string, unknown>, extra: Partial<InboundParts> = {}): InboundParts {
  return { topic: topic ?? '', payload, hub, chatId: topic, normalMode: true, fromSelf: false, ...extra };
}

export function fromMessage(m: InboundMessage): InboundParts {
  const { fragments, text, mentions: list, mode, reply, sender: from, ...envelope } = m;
  return parts(
    m.chatId,
    { text, fragments, mentions: mentions(list), mode, reply },
    { ...snakeKeys(envelope), sender: sender(from), mode },
    { normalMode: m.isNormalMode, fromSelf: m.fromSelf },
  );
}

export function fromStream(e: StreamEvent): InboundParts {
  const { text, delta, fragments, sequence, consistent, sender: from, phase, ...rest } = e;
  return parts(
    e.chatId,
    snakeKeys({ text, delta, fragments, sequence, consistent, mode: e.mode }),
    { event: `message.${phase}`, phase, ...snakeKeys(rest), sender: sender(from) },
    { normalMode: e.isNormalMode, fromSelf: e.fromSelf },
  );
}

export function fromReaction(e: ReactionEvent): InboundParts {
  const { emoji, removed, targetMessageId, ...rest } = e;
  return parts(e.chatId, snakeKeys({ emoji, removed, targetMessageId }), { event: 'message.reaction', ...snakeKeys(rest) }, { fromSelf: e.fromSelf });
}

export function fromRead(e: ReadEvent): InboundParts {
  return parts(e.chatId, { last_read_emitted_at: e.lastReadEmittedAt }, { event: 'message.read', chat_id: e.chatId, snapshot: e.snapshot });
}

export function fromDelivered(e: DeliveryReceipt): InboundParts {
  return parts(e.chatId, snakeKeys(e), { event: 'message.delivered', chat_id: e.chatId, message_id: e.messageId });
}

export function fromTyping(e: TypingEvent): InboundParts {
  return parts(e.chatId, snakeKeys({ userId: e.userId, isTyping: e.isTyping, expired: e.expired }), { event: 'typing.update', chat_id: e.chatId, user_id: e.userId });
}

export function fromPresence(e: PresenceEvent): InboundParts {
  const p = parts(e.userId, snakeKeys({ userId: e.userId, online: e.online, lastSeenAt: e.lastSeenAt }), {
    event: e.snapshot ? 'presence.snapshot' : 'presence.update',
    user_id: e.userId,
    snapshot: e.snapshot,
  });
  return { ...p, chatId: undefined };
}

export function fromChatMetadata(e: ChatMetadataEvent): InboundParts {
  return parts(e.chatId, snakeKeys({ scopes: e.scopes, refetch: e.refetch, version: e.version, updatedAt: e.updatedAt }), {
    event: 'chat.metadata.invalidated',
    ...snakeKeys({ chatId: e.chatId, chatType: e.chatType }),
  });
}

export function fromNotify(e: NotifyEvent): InboundParts {
  const p = parts(e.type, snakeKeys({ type: e.type, entityId: e.entityId, version: e.version, eventId: e.eventId, stale: e.stale }), {
    event: 'notify.signal',
    ...snakeKeys({ eventId: e.eventId, coalesceKey: e.coalesceKey, replay: e.replay, stale: e.stale }),
  });
  return { ...p, chatId: undefined };
}

export function fromPermission(e: PermissionEvent): InboundParts {
  if (e.kind === 'resolved') {
    const { kind: _kind, card, ...rest } = e;
    return parts(e.chatId, { ...snakeKeys(rest), card: card ? snakeKeys(card) : undefined }, { event: 'permission.resolved', kind: 'resolved', request_id: e.requestId });
  }
  const card = snakeKeys(e.card);
  // `expired` is this client's own event: the card's expires_at passed without a resolution (§9.5).
  return parts(e.card.chatId, card, { event: e.kind === 'request' ? 'permission.request' : 'permission.expired', kind: e.kind, request_id: e.card.requestId });
}

export function fromUnknown(e: FrameEvent): InboundParts {
  return parts(e.chatId, e.payload, { ...snakeKeys({ event: e.event, chatId: e.chatId, messageId: e.messageId, seq: e.seq, dseq: e.dseq, replay: e.replay }), envelope: e.envelope });
}

export function fromState(s: HubStatus): InboundParts {
  const p = parts('state', snakeKeys(s), { event: 'state', state: s.state });
  return { ...p, chatId: undefined };
}

/** One mapper per event type, typed by the client event it reads. */
export const INBOUND_MAPPERS: { [K in HubInEvent]: (value: HubClientEvents[(typeof HUB_IN_EVENTS)[K]]) => InboundParts } = {
  message: fromMessage,
  stream: fromStream,
  reaction: fromReaction,
  read: fromRead,
  delivered: fromDelivered,
  typing: fromTyping,
  presence: fromPresence,
  'chat-metadata': fromChatMetadata,
  notify: fromNotify,
  permission: fromPermission,
  unknown: fromUnknown,
  state: fromState,
};
