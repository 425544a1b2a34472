/**
 * What the web UI knows of each mesh node, from the bus alone (the status extension keeps its own book rather than
 * reading Home Assistant's, because extensions do not know each other and the UI must work without MQTT): the shared
 * node registry (gateway/mesh-nodes) for liveness, RSSI and rates, the `devices:` mappings for readings, and beside
 * them what only the UI shows: which radio heard the node through which neighbour, its recent messages and its
 * readings' 24-hour history. Everything is bounded: the registry's node cap, `MAX_MESSAGES` per node, and texts
 * cut to `MAX_TEXT_CHARS`. A message's text is kept for the node page's "show text", which needs the auth token.
 */
import { isInternalContent } from '../../../../lib/mesh/control-prefixes';
import { cutText } from '../../../../lib/text-cut';
import type { EventBus, MeshAckEvent, MeshMessageEvent, PeerChangeEvent } from '../../../bus';
import type { GatewayConfig } from '../../../gateway-config';
import { compileMappings, readingsOf, type CompiledDevice, type ReadingValue } from '../../../mesh-nodes/readings';
import { NodeRegistry, type NodeRecord } from '../../../mesh-nodes/registry';
import type { MeshApi } from '../../../router';
import { ReadingHistory, type HistoryPoint } from './reading-history';
import type { GatewayHearing } from './site-views';

const MAX_MESSAGES = 50;
const MAX_TEXT_CHARS = 2000;
/** Distinct hop counts kept per node: the map shows how far away it is heard, not a histogram. */
const MAX_HOP_COUNTS = 16;

/** How one radio hears a node: directly (hop 0, through the neighbour that is the node) or relayed by `peer`. */
export interface Hearing {
  radio: string;
  peer: string;
  hop_count: number;
  rssi?: number;
  at: number;
}

export interface NodeMessage {
  id: string;
  at: number;
  recipient: string;
  app_id: string;
  content_type: string;
  hop_count: number;
  radio: string;
  rssi?: number;
  sender_verified: boolean;
  has_text: boolean;
}

export interface NodeRow {
  address: string;
  name?: string;
  connected: boolean;
  heard_by: Hearing[];
  /** The site's other gateways that hear it, from their retained views (site-views.ts). */
  gateways: GatewayHearing[];
  links: string[];
  rssi?: number;
  /** From its signed BLE advertisement, 0–100 %, once a link to it reported one. */
  battery?: number;
  /** Likewise, the node's own load figure (0–254). */
  load?: number;
  last_seen: number;
  messages: number;
  messages_per_min: number;
  /** Of its messages, the share whose sender the gateway verified (0 to 1); absent before its first message. */
  verified_share?: number;
  /** The hop counts its messages arrived with, smallest first. */
  hops_seen: number[];
  readings: Record<string, ReadingValue>;
}

export interface NodeDetail extends NodeRow {
  recent: NodeMessage[];
  history: Record<string, HistoryPoint[]>;
}

interface Extra {
  heardBy: Map<string, Hearing>;
  verified: number;
  hops: Set<number>;
  recent: Array<NodeMessage & { text?: string }>;
  history: ReadingHistory;
}

export class NodeBook {
  private readonly registry: NodeRegistry;
  private readonly mappings: CompiledDevice[];
  private readonly extras = new Map<string, Extra>();
  private readonly names: Readonly<Record<string, string>>;

  constructor(
    config: GatewayConfig,
    self: string,
    private readonly now: () => number,
    private readonly otherGateways: (address: string) => GatewayHearing[] = () => [],
  ) {
    this.registry = new NodeRegistry({ self, heardWindowMs: config.nodes.heard_window_s * 1000, forgetAfterMs: config.nodes.forget_after_s * 1000 });
    this.mappings = compileMappings(config.devices, config.nodes.names);
    this.names = config.nodes.names;
  }

  /** Listens on the bus under `owner`, and takes in the neighbours already up. */
  attach(bus: EventBus, owner: object, mesh: Pick<MeshApi, 'neighbours'>): void {
    bus.on('meshMessage', owner, (e) => this.onMessage(e));
    bus.on('meshAck', owner, (e) => this.onAck(e));
    bus.on('peerChange', owner, (e) => this.onPeer(e));
    for (const n of mesh.neighbours()) this.onPeer({ radioId: n.radioId, peer: n.peer, change: 'up' });
  }

  rows(): NodeRow[] {
    const now = this.now();
    for (const gone of this.registry.forgettable(now)) this.forget(gone.address);
    return this.registry.list().map((n) => this.row(n, now));
  }

  detail(address: string): NodeDetail | undefined {
    const node = this.registry.get(address);
    if (!node) return undefined;
    const now = this.now();
    const extra = this.extraOf(address);
    return { ...this.row(node, now), recent: extra.recent.map(({ text: _text, ...envelope }) => envelope), history: extra.history.read(now) };
  }

  /** The kept text of one of the node's recent messages (undefined when unknown, gone, or not text). */
  text(address: string, id: string): string | undefined {
    return this.extras.get(address)?.recent.find((m) => m.id === id)?.text;
  }

  private row(n: NodeRecord, now: number): NodeRow {
    const extra = this.extras.get(n.address);
    const row: NodeRow = {
      address: n.address,
      connected: this.registry.connected(n, now),
      heard_by: extra ? [...extra.heardBy.values()] : [],
      gateways: this.otherGateways(n.address),
      links: [...n.links],
      last_seen: n.lastSeen,
      messages: n.messages,
      messages_per_min: this.registry.perMinute(n, now),
      hops_seen: extra ? [...extra.hops].sort((a, b) => a - b) : [],
      readings: { ...n.readings },
    };
    if (n.messages > 0 && extra) row.verified_share = Math.round((extra.verified / n.messages) * 100) / 100;
    const name = this.names[n.address];
    if (name !== undefined) row.name = name;
    if (n.rssi !== undefined) row.rssi = n.rssi;
    if (n.battery !== undefined) row.battery = n.battery;
    if (n.load !== undefined) row.load = n.load;
    return row;
  }

  private onMessage(e: MeshMessageEvent): void {
    const m = e.message;
    const node = this.registry.record(e)?.node;
    if (!node) return;
    const extra = this.extraOf(node.address);
    this.hear(extra, e.rx.radioId, e.rx.peerId, m.hop_count, e.rx.receivedAt, e.rx.rssi);
    if (e.senderVerified) extra.verified += 1;
    if (extra.hops.size < MAX_HOP_COUNTS) extra.hops.add(m.hop_count);
    // Protocol content (MLS, control) is nobody's text to read here, even with the token.
    const text = m.content_type === 'text' && !isInternalContent(m.content) ? cutText(m.content, MAX_TEXT_CHARS) : undefined;
    const entry: NodeMessage & { text?: string } = {
      id: e.id,
      at: e.rx.receivedAt,
      recipient: m.recipient,
      app_id: m.app_id,
      content_type: m.content_type,
      hop_count: m.hop_count,
      radio: e.rx.radioId,
      sender_verified: e.senderVerified,
      has_text: text !== undefined,
    };
    if (e.rx.rssi !== undefined) entry.rssi = e.rx.rssi;
    if (text !== undefined) entry.text = text;
    extra.recent.unshift(entry);
    if (extra.recent.length > MAX_MESSAGES) extra.recent.length = MAX_MESSAGES;
    for (const r of readingsOf(this.mappings, m, e.senderVerified)) {
      Object.assign(node.readings, r.values);
      extra.history.add(r.values, e.rx.receivedAt);
    }
  }

  private onAck(e: MeshAckEvent): void {
    const node = this.registry.heard(e.from, e.rx.receivedAt, e.hopCount === 0 ? e.rx.rssi : undefined);
    if (node) this.hear(this.extraOf(node.address), e.rx.radioId, e.rx.peerId, e.hopCount, e.rx.receivedAt, e.rx.rssi);
  }

  private onPeer(e: PeerChangeEvent): void {
    if (e.peer.address === undefined) return;
    const node = this.registry.link(e.peer.address, `${e.radioId}/${e.peer.id}`, e.change !== 'down' && e.peer.connected, this.now(), e.peer);
    if (node && e.change !== 'down') this.hear(this.extraOf(node.address), e.radioId, e.peer.id, 0, this.now(), e.peer.rssi);
  }

  private hear(extra: Extra, radio: string, peer: string, hopCount: number, at: number, rssi: number | undefined): void {
    const h: Hearing = { radio, peer, hop_count: hopCount, at };
    // A relayed frame's RSSI is the relay's, not the node's.
    if (rssi !== undefined && hopCount === 0) h.rssi = rssi;
    extra.heardBy.set(radio, h);
  }

  private extraOf(address: string): Extra {
    let extra = this.extras.get(address);
    if (!extra) {
      // The registry drops the node heard longest ago when it is full; the extras follow it.
      if (this.extras.size > this.registry.size) for (const a of this.extras.keys()) if (!this.registry.get(a)) this.extras.delete(a);
      this.extras.set(address, (extra = { heardBy: new Map(), verified: 0, hops: new Set(), recent: [], history: new ReadingHistory() }));
    }
    return extra;
  }

  /** Drops the node and all the book kept of it; false when it was not known. */
  forget(address: string): boolean {
    this.extras.delete(address);
    return this.registry.forget(address);
  }
}
