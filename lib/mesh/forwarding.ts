/**
 * Mesh forwarding (mesh-reference-facts.md §4 "Forwarding", §3 "Addressing").
 *
 * A frame not addressed to us is carried on, with its hop budget rewritten rather than trusted: nothing leaves with
 * more than 8 hops left (5 in a dense neighbourhood of 6 or more), nothing is forwarded at all once it has travelled
 * 16 hops, and a budget of 1 or less is spent. Pacing (jitter, rate limits, the queue) belongs to the router that
 * calls this; the decision itself is pure.
 */
import { createHash } from 'node:crypto';
import { compareBytes } from '../bytes';
import type { MeshMessage } from './message';

export const RELAY_MAX_HOP_COUNT = 16;
export const RELAY_MAX_TTL = 8;
export const RELAY_DENSE_MAX_TTL = 5;
/** Neighbour count at or above which the dense ceiling applies. */
export const RELAY_DENSE_DEGREE = 6;
/** Neighbours a frame is offered to when its recipient is not one of them. */
export const RELAY_FANOUT = 3;

export type ForwardRefusal =
  /** Addressed to this node: deliver, do not forward. */
  | 'FOR_US'
  /** Not for us yet claims to be from us: a reflection or a spoof, dropped. */
  | 'OWN_SENDER'
  | 'HOP_LIMIT'
  | 'TTL_EXHAUSTED';

export type ForwardDecision =
  | { forward: false; reason: ForwardRefusal }
  | {
      forward: true;
      /** The copy to send: ttl = effective − 1, hop_count + 1, everything else unchanged. */
      next: MeshMessage;
      /** min(claimed, ceiling) before the decrement. */
      effectiveTtl: number;
      /** Whether the claimed ttl was above the ceiling. */
      clamped: boolean;
    };

export function forwardDecision(message: MeshMessage, context: { localId: string; neighbourCount: number }): ForwardDecision {
  if (message.recipient === context.localId) return { forward: false, reason: 'FOR_US' };
  if (message.sender === context.localId) return { forward: false, reason: 'OWN_SENDER' };
  if (message.hop_count >= RELAY_MAX_HOP_COUNT) return { forward: false, reason: 'HOP_LIMIT' };
  const ceiling = context.neighbourCount >= RELAY_DENSE_DEGREE ? RELAY_DENSE_MAX_TTL : RELAY_MAX_TTL;
  const effectiveTtl = Math.min(message.ttl, ceiling);
  if (effectiveTtl <= 1) return { forward: false, reason: 'TTL_EXHAUSTED' };
  const next: MeshMessage = { ...message, ttl: effectiveTtl - 1, hop_count: message.hop_count + 1, metadata: new Map(message.metadata) };
  return { forward: true, next, effectiveTtl, clamped: effectiveTtl < message.ttl };
}

export interface Neighbour {
  id: string;
  /** Higher is preferred (link quality, RSSI bucket…); equal by default. */
  quality?: number;
}

export interface RelayTargetsContext {
  localId: string;
  /** The peers currently reachable in one hop. */
  neighbours: readonly (string | Neighbour)[];
  /** The neighbour the frame came from, which must not get it back. */
  arrivalPeer?: string;
  /** Neighbours known to hold the frame already. */
  exclude?: Iterable<string>;
  /** Default 3. */
  fanout?: number;
}

/**
 * Where to send a frame: the recipient alone when it is a neighbour, otherwise up to `fanout` neighbours chosen by
 * quality and then by a hash of (message id, neighbour, local id). The hash makes the choice stable for one message
 * at one node, so a retransmission reaches the same neighbours instead of widening its footprint, while different
 * messages and different nodes spread over different neighbours.
 */
export function relayTargets(message: MeshMessage, context: RelayTargetsContext): string[] {
  const excluded = new Set<string>(context.exclude ?? []);
  excluded.add(context.localId);
  if (context.arrivalPeer !== undefined) excluded.add(context.arrivalPeer);
  const candidates = new Map<string, number>();
  for (const n of context.neighbours) {
    const id = typeof n === 'string' ? n : n.id;
    const quality = typeof n === 'string' ? 0 : (n.quality ?? 0);
    if (!excluded.has(id) && !candidates.has(id)) candidates.set(id, quality);
  }
  if (candidates.has(message.recipient)) return [message.recipient];
  if (context.arrivalPeer === message.recipient) return [];
  const messageId = message.id.toString();
  const ranked = [...candidates].map(([id, quality]) => ({ id, quality, key: stableKey(messageId, id, context.localId) }));
  ranked.sort((a, b) => b.quality - a.quality || compareBytes(a.key, b.key));
  return ranked.slice(0, context.fanout ?? RELAY_FANOUT).map((r) => r.id);
}

function stableKey(messageId: string, peer: string, localId: string): Uint8Array {
  return createHash('sha256').update(messageId).update('\0').update(peer).update('\0').update(localId).digest();
}
