/**
 * Radio and neighbour availability on MQTT: a retained JSON state per radio (`radios/<id>/state`) and per neighbour
 * (`radios/<id>/peers/<peer>`), published when they change and all again on every connection, so a subscriber that
 * arrives late (or a broker that lost its retained store) always sees the present. A neighbour that leaves stays
 * as `connected: false` rather than vanishing, so dashboards can tell "gone" from "never seen". What follows the
 * traffic (a radio's counters, a neighbour's `last_seen` and RSSI) is published at most once every
 * `PEER_UPDATE_MIN_INTERVAL_MS` per topic, from a refresh tick: the retained state stays true without one publish per frame.
 */
import { KEY_PACKAGE_PREFIX } from '../../../lib/mesh/key-package';
import type { PeerChangeEvent, Reception } from '../../bus';
import type { RadioPeer, RadioStatus } from '../../radios/radio';
import { Extension, type ExtensionContext } from '../../extension';

const PEER_UPDATE_MIN_INTERVAL_MS = 5000;

interface PeerRecord {
  radioId: string;
  peer: RadioPeer;
  lastSeen: number;
  lastPublished: number;
  /** Seen since the last publish (traffic, an RSSI update). */
  dirty: boolean;
}

export class Availability extends Extension {
  readonly name = 'availability';
  private readonly radioStates = new Map<string, RadioStatus>();
  private readonly peers = new Map<string, PeerRecord>();
  private readonly onUp = (): void => this.publishAll();
  private readonly radioPublished = new Map<string, string>();
  private tick: unknown;

  constructor(ctx: ExtensionContext) {
    super(ctx);
  }

  override async start(): Promise<void> {
    for (const s of this.ctx.mesh.radios()) this.radioStates.set(s.radioId, s);
    for (const n of this.ctx.mesh.neighbours()) this.peers.set(`${n.radioId}/${n.peer.id}`, { radioId: n.radioId, peer: n.peer, lastSeen: this.ctx.clock.now(), lastPublished: 0, dirty: false });
    this.ctx.bus.on('radioStatus', this, (s) => {
      this.radioStates.set(s.radioId, s);
      this.publishRadio(s);
    });
    this.ctx.bus.on('peerChange', this, (e) => this.onPeer(e));
    this.ctx.bus.on('meshMessage', this, (e) => {
      this.heard(e.rx);
      // A key package changes what the peer's topic says (its capability lists): rare, so published at once.
      if (e.message.content.startsWith(KEY_PACKAGE_PREFIX)) {
        const record = this.peers.get(`${e.rx.radioId}/${e.rx.peerId}`);
        if (record) this.publishPeer(record);
      }
    });
    this.ctx.bus.on('meshAck', this, (e) => this.heard(e.rx));
    this.ctx.mqtt?.connection.on('up', this.onUp);
    if (this.ctx.mqtt?.connection.connected) this.publishAll();
    this.scheduleRefresh();
  }

  override async stop(): Promise<void> {
    this.ctx.mqtt?.connection.off('up', this.onUp);
    this.ctx.clock.clearTimeout(this.tick);
    await super.stop();
  }

  private heard(rx: Reception): void {
    const record = this.peers.get(`${rx.radioId}/${rx.peerId}`);
    if (!record) return;
    record.lastSeen = Math.max(record.lastSeen, rx.receivedAt);
    if (rx.rssi !== undefined) record.peer.rssi = rx.rssi;
    record.dirty = true;
  }

  private scheduleRefresh(): void {
    this.tick = this.ctx.clock.setTimeout(() => {
      this.refresh();
      this.scheduleRefresh();
    }, PEER_UPDATE_MIN_INTERVAL_MS);
  }

  /** Republishes what the traffic changed since the last tick: radio counters, neighbours heard. */
  refresh(): void {
    for (const s of this.ctx.mesh.radios()) {
      this.radioStates.set(s.radioId, s);
      this.publishRadio(s, true);
    }
    const now = this.ctx.clock.now();
    for (const r of this.peers.values()) if (r.dirty && now - r.lastPublished >= PEER_UPDATE_MIN_INTERVAL_MS) this.publishPeer(r);
  }

  private onPeer(e: PeerChangeEvent): void {
    const key = `${e.radioId}/${e.peer.id}`;
    const now = this.ctx.clock.now();
    const prev = this.peers.get(key);
    const record: PeerRecord = { radioId: e.radioId, peer: { ...e.peer, connected: e.change !== 'down' && e.peer.connected }, lastSeen: now, lastPublished: prev?.lastPublished ?? 0, dirty: true };
    this.peers.set(key, record);
    // The refresh tick publishes it when it is only an RSSI or MTU update inside the interval.
    if (e.change === 'updated' && prev && prev.peer.connected === record.peer.connected && now - prev.lastPublished < PEER_UPDATE_MIN_INTERVAL_MS) return;
    this.publishPeer(record);
  }

  private publishAll(): void {
    for (const s of this.radioStates.values()) this.publishRadio(s);
    for (const p of this.peers.values()) this.publishPeer(p);
  }

  /** `onlyChanged`: skip when the body is what was published last (the refresh tick). */
  private publishRadio(s: RadioStatus, onlyChanged = false): void {
    const mqtt = this.ctx.mqtt;
    if (!mqtt?.connection.connected) return;
    const body: Record<string, unknown> = { id: s.radioId, kind: s.kind, state: s.state, peers: s.peers };
    if (s.detail !== undefined) body.detail = s.detail;
    if (s.counters) body.counters = s.counters;
    const text = JSON.stringify(body);
    if (onlyChanged && this.radioPublished.get(s.radioId) === text) return;
    this.radioPublished.set(s.radioId, text);
    mqtt.connection.publish(mqtt.topics.radioState(s.radioId), text, { qos: 1, retain: true }, () => undefined);
  }

  private publishPeer(r: PeerRecord): void {
    const mqtt = this.ctx.mqtt;
    if (!mqtt?.connection.connected) return;
    r.lastPublished = this.ctx.clock.now();
    r.dirty = false;
    const p = r.peer;
    const body: Record<string, unknown> = { id: p.id, radio: r.radioId, connected: p.connected, wire_versions: p.wireVersions, last_seen: new Date(r.lastSeen).toISOString() };
    if (p.address !== undefined) body.address = p.address;
    const keyPackage = p.address !== undefined ? this.ctx.mesh.keyPackage(p.address) : undefined;
    if (keyPackage !== undefined) body.key_package = keyPackage;
    if (p.mtu !== undefined) body.mtu = p.mtu;
    if (p.rssi !== undefined) body.rssi = p.rssi;
    mqtt.connection.publish(mqtt.topics.peer(r.radioId, p.id), JSON.stringify(body), { qos: 1, retain: true }, () => undefined);
  }
}

export function createExtension(ctx: ExtensionContext): Extension {
  return new Availability(ctx);
}
