/**
 * The mesh nodes this gateway hears: every sender of a message or ACK and every neighbour with a known address. A
 * node is *connected* while it is a connected neighbour of one of the radios, or was heard within the heard
 * window; it is *forgotten* once it has not been heard for `forget_after_s`. The registry is bounded: a neighbour
 * can claim any sender address, so past `maxNodes` the node heard longest ago (never a connected neighbour) goes.
 */
import { isAddress } from '../../lib/mesh/address';
import { cutText } from '../../lib/text-cut';
import type { ReadingValue } from './readings';
import type { MeshMessageEvent } from '../bus';

export interface LastMessage {
  id: string;
  app_id: string;
  /** The text content, cut to what a Home Assistant state holds (255 characters). */
  content: string;
  at: number;
  hop_count: number;
  sender_verified: boolean;
}

export interface NodeRecord {
  address: string;
  firstSeen: number;
  lastSeen: number;
  rssi?: number;
  /** From its signed BLE advertisement, when a link to it reports them (radio `RadioPeer.battery` / `load`). */
  battery?: number;
  load?: number;
  /** `radioId/peerId` of each connected link to this node. */
  links: Set<string>;
  messages: number;
  lastMessage?: LastMessage;
  readings: Record<string, ReadingValue>;
  mismatches: number;
  lastMismatch?: { key: string; reason: string; at: number };
  /** Copies of its messages heard again (relayed twice, resent before our ACK arrived). */
  duplicates: number;
  /** When its messages of the last minute arrived (oldest first, at most one minute's worth). */
  recent: number[];
  /** The app ids it sent, first seen first, at most `MAX_APP_IDS` (the event entity's types). */
  appIds: string[];
  /** Texts sent to it from Home Assistant, and how many of those its ACK confirmed. */
  sends: { total: number; acked: number };
}

export interface RegistryOptions {
  self: string;
  heardWindowMs: number;
  forgetAfterMs: number;
  maxNodes?: number;
}

export const STATE_TEXT_LIMIT = 255;
/** App ids kept per node (Home Assistant's event types); more are shown as `message`. */
export const MAX_APP_IDS = 16;
const MAX_RECENT = 6000;

export class NodeRegistry {
  private readonly nodes = new Map<string, NodeRecord>();
  private readonly maxNodes: number;

  constructor(private readonly options: RegistryOptions) {
    this.maxNodes = options.maxNodes ?? 1000;
  }

  get size(): number {
    return this.nodes.size;
  }

  get(address: string): NodeRecord | undefined {
    return this.nodes.get(address);
  }

  list(): NodeRecord[] {
    return [...this.nodes.values()];
  }

  /** Records that `address` was heard; `undefined` when it is not a mesh address or is the gateway itself. */
  heard(address: string, at: number, rssi?: number): NodeRecord | undefined {
    let node = this.nodes.get(address);
    if (!node) {
      // Checked once, when the node is first heard: parsing an address (bech32m decode, then re-encode to refuse a
      // non-canonical spelling) was a third of the heap the gateway allocated per message. The gateway itself and
      // non-addresses never enter the map, so a hit needs no check.
      if (address === this.options.self || !isAddress(address)) return undefined;
      this.makeRoom();
      node = { address, firstSeen: at, lastSeen: at, links: new Set(), messages: 0, readings: {}, mismatches: 0, duplicates: 0, recent: [], appIds: [], sends: { total: 0, acked: 0 } };
      this.nodes.set(address, node);
    }
    node.lastSeen = Math.max(node.lastSeen, at);
    if (rssi !== undefined) node.rssi = rssi;
    return node;
  }

  /**
   * A mesh message from a node, as the bus reports it: a duplicate only counts; otherwise the node is heard (the RSSI
   * of a direct frame only: a relayed frame's is the relay's) and the message recorded. `newAppId` is true when the
   * message brought an app id the node had not used before. Undefined for a duplicate, a non-address or the gateway.
   */
  record(e: MeshMessageEvent): { node: NodeRecord; newAppId: boolean } | undefined {
    const m = e.message;
    if (e.duplicate) {
      const known = this.nodes.get(m.sender);
      if (known) known.duplicates += 1;
      return undefined;
    }
    const node = this.heard(m.sender, e.rx.receivedAt, m.hop_count === 0 ? e.rx.rssi : undefined);
    if (!node) return undefined;
    const known = node.appIds.includes(m.app_id);
    this.message(node, { id: e.id, app_id: m.app_id, content: m.content, at: e.rx.receivedAt, hop_count: m.hop_count, sender_verified: e.senderVerified });
    return { node, newAppId: !known && node.appIds.includes(m.app_id) };
  }

  message(node: NodeRecord, m: Omit<LastMessage, 'content'> & { content: string }): void {
    node.messages += 1;
    node.lastMessage = { ...m, content: cutText(m.content, STATE_TEXT_LIMIT) };
    node.recent.push(m.at);
    this.perMinute(node, m.at);
    if (node.appIds.length < MAX_APP_IDS && !node.appIds.includes(m.app_id)) node.appIds.push(m.app_id);
  }

  /** Its messages in the minute before `now` (and the window trimmed to it). */
  perMinute(node: NodeRecord, now: number): number {
    let drop = 0;
    while (drop < node.recent.length && node.recent[drop]! <= now - 60_000) drop += 1;
    if (drop > 0) node.recent.splice(0, drop);
    // A node flooding the mesh must not grow the window without bound: past the cap the rate is the cap.
    if (node.recent.length > MAX_RECENT) node.recent.splice(0, node.recent.length - MAX_RECENT);
    return node.recent.length;
  }

  /** A link to a neighbour came up, changed or went down; `peer` is what the radio knows of it. */
  link(address: string, link: string, connected: boolean, at: number, peer: { rssi?: number; battery?: number; load?: number } = {}): NodeRecord | undefined {
    const node = connected ? this.heard(address, at, peer.rssi) : this.nodes.get(address);
    if (!node) return undefined;
    if (peer.battery !== undefined) node.battery = peer.battery;
    if (peer.load !== undefined) node.load = peer.load;
    if (connected) node.links.add(link);
    else {
      node.links.delete(link);
      node.lastSeen = Math.max(node.lastSeen, at);
    }
    return node;
  }

  connected(node: NodeRecord, now: number): boolean {
    return node.links.size > 0 || now - node.lastSeen <= this.options.heardWindowMs;
  }

  /** Nodes not heard for the forget time and not linked: for the periodic sweep. */
  forgettable(now: number): NodeRecord[] {
    return this.list().filter((n) => n.links.size === 0 && now - n.lastSeen > this.options.forgetAfterMs);
  }

  forget(address: string): boolean {
    return this.nodes.delete(address);
  }

  private makeRoom(): void {
    if (this.nodes.size < this.maxNodes) return;
    let oldest: NodeRecord | undefined;
    for (const n of this.nodes.values()) if (n.links.size === 0 && (!oldest || n.lastSeen < oldest.lastSeen)) oldest = n;
    if (oldest) this.nodes.delete(oldest.address);
  }
}
