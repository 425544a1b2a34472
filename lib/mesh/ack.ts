/**
 * Delivery acknowledgements (mesh-reference-facts.md §4 "ACK shape", "When ACKs are sent").
 *
 * An ACK is an ordinary message from the local id back to the original sender: empty text content, priority low,
 * ttl 8, `requires_ack` false, lamport 0, unsigned, and three reserved metadata keys naming what it acknowledges.
 * On receive, any frame with an `ack_for` key is an ACK and is never delivered to an application; it settles a
 * pending send only when it comes from the peer that send was addressed to.
 */
import { MessageId } from './message-id';
import { createMessage, DEFAULT_TTL, MeshMessage, MessageIdLike } from './message';
import type { Transport } from './transport';

export const ACK_FOR_KEY = 'ack_for';
export const ACK_HOP_COUNT_KEY = 'ack_hop_count';
export const ACK_TRANSPORT_KEY = 'ack_transport';

export interface BuildAckOptions {
  /** This node's id: the ACK's sender. */
  localId: string;
  /** This node's configured app id (not the original's). */
  appId: string;
  /** The transport the acknowledged message arrived on. */
  transport: Transport;
  /** Hop count to report instead of the received one; group-drain ACKs report 0. */
  hopCount?: number;
  /** Wall-clock milliseconds for the ACK's display timestamp (default `Date.now()`). */
  now?: () => number | bigint;
  /** The ACK's own id (default random). */
  id?: MessageIdLike;
}

/** The ACK for `original`, exactly as the reference builds it. Throws `MeshDecodeError` if `localId` or `appId` is not a valid identifier. */
/** What an ACK is built from: the id it acknowledges, who sent that message, and the hop count it arrived with. */
export type AckSource = Pick<MeshMessage, 'id' | 'sender' | 'hop_count'>;

export function buildAck(original: AckSource, options: BuildAckOptions): MeshMessage {
  const now = options.now ?? Date.now;
  const metadata = new Map<string, string>([
    [ACK_FOR_KEY, original.id.toString()],
    [ACK_HOP_COUNT_KEY, String(options.hopCount ?? original.hop_count)],
    [ACK_TRANSPORT_KEY, options.transport],
  ]);
  return createMessage({
    id: options.id ?? MessageId.random(),
    sender: options.localId,
    recipient: original.sender,
    app_id: options.appId,
    priority: 'low',
    ttl: DEFAULT_TTL,
    hop_count: 0,
    timestamp: BigInt(now()),
    lamport_clock: 0n,
    content_type: 'text',
    content: '',
    metadata,
    requires_ack: false,
  });
}

/** Any frame carrying `ack_for` is an ACK, whatever else it carries. */
export function isAck(message: MeshMessage): boolean {
  return message.metadata.has(ACK_FOR_KEY);
}

/** The `ack_for` value as it arrived (normally a lowercase UUID), or undefined for a message that is not an ACK. */
export function ackTarget(message: MeshMessage): string | undefined {
  return message.metadata.get(ACK_FOR_KEY);
}

/**
 * Whether `ack` settles a pending send: it names that send's id (any UUID spelling) and comes from the recipient the
 * send was addressed to. An ACK from anyone else proves nothing about delivery. `sender` is not authenticated, so
 * when the ACK arrived at hop 0 from a peer whose address the transport verified (`deliveredBy`), that peer must be
 * the recipient: a neighbour cannot settle a send by claiming to be someone else one hop away.
 */
export function ackSettles(ack: MeshMessage, pending: { id: MessageIdLike | string; recipient: string }, deliveredBy?: string): boolean {
  const target = ackTarget(ack);
  if (target === undefined || ack.sender !== pending.recipient) return false;
  if (ack.hop_count === 0 && deliveredBy !== undefined && deliveredBy !== ack.sender) return false;
  try {
    const acked = MessageId.parse(target);
    const id = typeof pending.id === 'string' ? MessageId.parse(pending.id) : pending.id;
    return acked.equals(id);
  } catch {
    return false;
  }
}

/**
 * What became of a received message, as the receive path decided it:
 * - `delivered`: handed to the application;
 * - `control-consumed`: a control frame that passed the gate and was acted on;
 * - `chunk-handled`: a file chunk taken by the file reassembler;
 * - `duplicate`: already seen (dedup hit);
 * - `deferred-drained`: a frame held earlier (session not ready) and now processed;
 * - `security-rejected`: refused by the control gate;
 * - `deferred`: held for later (session not ready, desync, crypto or parse failure);
 * - `plaintext-refused`: refused by an encryption policy;
 * - `blocked`: from a blocked sender;
 * - `not-for-us`: addressed to someone else (forwarded or dropped);
 * - `ack`: itself an ACK.
 */
export type ReceiveOutcome =
  | 'delivered'
  | 'control-consumed'
  | 'chunk-handled'
  | 'duplicate'
  | 'deferred-drained'
  | 'security-rejected'
  | 'deferred'
  | 'plaintext-refused'
  | 'blocked'
  | 'not-for-us'
  | 'ack';

const ACKED_OUTCOMES: ReadonlySet<ReceiveOutcome> = new Set(['delivered', 'control-consumed', 'chunk-handled', 'duplicate', 'deferred-drained']);
const UNMARK_OUTCOMES: ReadonlySet<ReceiveOutcome> = new Set(['security-rejected', 'deferred', 'plaintext-refused']);

export interface ReceiveActions {
  /** Send an ACK (built with `buildAck`) back to the sender. */
  ack: boolean;
  /** Forget the id in the deduplicator, so that the sender's retry is processed again rather than re-acknowledged. */
  unmarkDedup: boolean;
}

/**
 * The reference's rules as one pure function: ACK only a message that asked for one, only for the five acknowledged
 * outcomes, never an ACK, and not a duplicate from a blocked sender. Security rejections, deferrals and refused
 * plaintext are never acknowledged and unmark the dedup id.
 */
export function receiveActions(message: MeshMessage, outcome: ReceiveOutcome, context: { senderBlocked?: boolean } = {}): ReceiveActions {
  const unmarkDedup = UNMARK_OUTCOMES.has(outcome);
  if (!message.requires_ack || isAck(message) || !ACKED_OUTCOMES.has(outcome)) return { ack: false, unmarkDedup };
  if (outcome === 'duplicate' && context.senderBlocked === true) return { ack: false, unmarkDedup };
  return { ack: true, unmarkDedup };
}
