/**
 * Radio and neighbour availability on MQTT: a retained JSON state per radio (`radios/<id>/state`) and per neighbour
 * (`radios/<id>/peers/<peer>`), published when they change and all again on every connection, so a subscriber that
 * arrives late (or a broker that lost its retained store) always sees the present. A neighbour that leaves stays
 * as `connected: false` rather than vanishing, so dashboards can tell "gone" from "never seen". RSSI-only updates
 * are limited to one per neighbour every few seconds.
 */
import type { PeerChangeEvent } from '../bus';
import type { RadioPeer, RadioStatus } from '../radios/radio';
import { Extension, type ExtensionContext } from '../extension';

const PEER_UPDATE_MIN_INTERVAL_MS = 5000;

interface PeerRecord {
  radioId: string;
  peer: RadioPeer;
  lastSeen: number;
  lastPublished: number;
}

export class Availability extends Extension {
  readonly name = 'availability';
  private readonly radioStates = new Map<string, RadioStatus>();
  private readonly peers = new Map<string, PeerRecord>();
  private readonly onUp = (): void => this.publishAll();

  constructor(ctx: ExtensionContext) {
    super(ctx);
  }

  override async start(): Promise<void> {
    for (const s of this.ctx.mesh.radios()) this.radioStates.set(s.radioId, s);
    for (const n of this.ctx.mesh.neighbours()) this.peers.set(`${n.radioId}/${n.peer.id}`, { radioId: n.radioId, peer: n.peer, lastSeen: this.ctx.clock.now(), lastPublished: 0 });
    this.ctx.bus.on('radioStatus', this, (s) => {
      this.radioStates.set(s.radioId, s);
      this.publishRadio(s);
    });
    this.ctx.bus.on('peerChange', this, (e) => this.onPeer(e));
    this.ctx.mqtt?.connection.on('up', this.onUp);
    if (this.ctx.mqtt?.connection.connected) this.publishAll();
  }

  override async stop(): Promise<void> {
    this.ctx.mqtt?.connection.off('up', this.onUp);
    await super.stop();
  }

  private onPeer(e: PeerChangeEvent): void {
    const key = `${e.radioId}/${e.peer.id}`;
    const now = this.ctx.clock.now();
    const prev = this.peers.get(key);
    const record: PeerRecord = { radioId: e.radioId, peer: { ...e.peer, connected: e.change !== 'down' && e.peer.connected }, lastSeen: now, lastPublished: prev?.lastPublished ?? 0 };
    this.peers.set(key, record);
    if (e.change === 'updated' && prev && prev.peer.connected === record.peer.connected && now - prev.lastPublished < PEER_UPDATE_MIN_INTERVAL_MS) return;
    this.publishPeer(record);
  }

  private publishAll(): void {
    for (const s of this.radioStates.values()) this.publishRadio(s);
    for (const p of this.peers.values()) this.publishPeer(p);
  }

  private publishRadio(s: RadioStatus): void {
    const mqtt = this.ctx.mqtt;
    if (!mqtt?.connection.connected) return;
    const body: Record<string, unknown> = { id: s.radioId, kind: s.kind, state: s.state, peers: s.peers };
    if (s.detail !== undefined) body.detail = s.detail;
    if (s.counters) body.counters = s.counters;
    mqtt.connection.publish(mqtt.topics.radioState(s.radioId), JSON.stringify(body), { qos: 1, retain: true }, () => undefined);
  }

  private publishPeer(r: PeerRecord): void {
    const mqtt = this.ctx.mqtt;
    if (!mqtt?.connection.connected) return;
    r.lastPublished = this.ctx.clock.now();
    const p = r.peer;
    const body: Record<string, unknown> = { id: p.id, radio: r.radioId, connected: p.connected, wire_versions: p.wireVersions, last_seen: new Date(r.lastSeen).toISOString() };
    if (p.address !== undefined) body.address = p.address;
    if (p.mtu !== undefined) body.mtu = p.mtu;
    if (p.rssi !== undefined) body.rssi = p.rssi;
    mqtt.connection.publish(mqtt.topics.peer(r.radioId, p.id), JSON.stringify(body), { qos: 1, retain: true }, () => undefined);
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new Availability(ctx);
}
