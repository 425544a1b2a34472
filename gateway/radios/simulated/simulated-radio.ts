/**
 * In-process virtual radios with virtual peers: the demo, the tests and integrators without hardware.
 *
 * Nothing here is a stand-in for the protocol. A virtual peer has a real Ed25519 identity and `off1…` address,
 * sends and answers real frames (JSON floor or binary v1, per its `wire_versions`), and, with `fragment` on (the
 * default), every frame crosses the virtual link as BLE fragments through the same fragmenter and reassembler
 * the BLE radio uses, at the fragment size its MTU gives. Writes complete asynchronously (after `latency_ms`),
 * so backpressure, ordering and peer loss behave as on a radio.
 *
 * Scripting (tests, `npm start`): `virtualPeer(id)` gives a peer; `inject`/`send`/`say` make it transmit;
 * `receipts`/`received`/`waitFor` show what it got; `vanish`/`appear` take it out of and back into range;
 * `pause`/`resume` stall its link; `setAutoAck` turns its ACKs on or off.
 */
import { isAck, buildAck } from '../../../lib/mesh/ack';
import { fragmentSizeForMtu } from '../../../lib/mesh/ble-fragment';
import { decodeFrameWithFormat, encodeFrame, type FrameFormat } from '../../../lib/mesh/frame';
import { createMessage, DEFAULT_TTL, type MeshMessage } from '../../../lib/mesh/message';
import { MessageId } from '../../../lib/mesh/message-id';
import { FragmentLink } from '../fragment-link';
import { identityFromSeed, type MeshIdentity } from '../mesh-identity';
import { RadioBase, type RadioBaseOptions } from '../radio-base';
import { resolveRadioConfig, type ResolvedSimulatedConfig, type ResolvedSimulatedPeer, type SimulatedPeerConfig } from '../radio-config';
import { MAX_MESH_FRAME_BYTES, RadioError, type RadioPeer } from '../radio';
import { TypedEmitter } from '../../../lib/typed-emitter';
import { counted } from '../../../lib/plural';

export interface SimulatedRadioDeps {
  /** The gateway's own address: default recipient of what talking peers say. */
  localAddress?: string;
}

/** One frame a virtual peer received from the gateway. */
export interface VirtualReceipt {
  frame: Uint8Array;
  /** The decoded message; absent when the frame did not decode (then `error` holds the code). */
  message?: MeshMessage;
  format?: FrameFormat;
  error?: string;
  at: number;
}

export interface VirtualPeerEvents {
  received: (receipt: VirtualReceipt) => void;
}

const SIM_APP_ID = 'clawling-sim';
const DEMO_APP_ID = 'clawling-demo';

/** Hooks a virtual peer needs from its radio; kept narrow so a peer cannot reach the rest of the radio. */
interface PeerLink {
  now(): number;
  fragmentSize(peer: VirtualPeer): number | undefined;
  latency(): Promise<void>;
  toGateway(peer: VirtualPeer, unit: Uint8Array): void;
  cameIntoRange(peer: VirtualPeer): void;
  wentOutOfRange(peer: VirtualPeer): void;
  defaultRecipient(): string;
  schedule(fn: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
  log(details: Record<string, unknown>, msg: string): void;
}

export class VirtualPeer extends TypedEmitter<VirtualPeerEvents> {
  readonly id: string;
  readonly identity: MeshIdentity;
  readonly address: string;
  wireVersions: number[];
  mtu: number | undefined;
  rssi: number | undefined;
  /** What its advertisement would report (a BLE node's IDENTITY); undefined: none. */
  battery: number | undefined;
  load: number | undefined;
  #autoAck: boolean;
  #inRange = false;
  #paused: Array<() => void> | undefined;
  readonly #receipts: VirtualReceipt[] = [];
  readonly #inbound: FragmentLink;
  readonly #link: PeerLink;
  #talkTimer: unknown;
  #talkCount = 0;
  readonly #talk: ResolvedSimulatedPeer['talk'];
  #acksSent = 0;

  /** @internal built by SimulatedRadio */
  constructor(radioId: string, config: ResolvedSimulatedPeer, link: PeerLink) {
    super((err) => link.log({ peer: config.id, err: String(err) }, 'virtual peer listener threw'));
    this.id = config.id;
    this.identity = identityFromSeed(`clawling-sim:${radioId}:${config.id}`);
    this.address = config.address ?? this.identity.address;
    this.wireVersions = [...config.wireVersions];
    this.mtu = config.mtu;
    this.rssi = config.rssi;
    this.battery = config.battery;
    this.load = config.load;
    this.#autoAck = config.autoAck;
    this.#talk = config.talk;
    this.#link = link;
    this.#inbound = new FragmentLink({
      maxAssemblies: 16,
      now: () => link.now(),
      onDrop: (reason, details) => link.log({ peer: this.id, reason, ...details }, 'virtual peer dropped a fragment'),
    });
  }

  get inRange(): boolean {
    return this.#inRange;
  }

  get autoAck(): boolean {
    return this.#autoAck;
  }

  get acksSent(): number {
    return this.#acksSent;
  }

  /** The codec this peer sends in: binary v1 when it speaks it. */
  get preferredFormat(): FrameFormat {
    return this.wireVersions.includes(1) ? 'binary' : 'json';
  }

  /** Every frame received from the gateway, in order. */
  receipts(): readonly VirtualReceipt[] {
    return this.#receipts;
  }

  /** The messages among them that decoded. */
  received(): MeshMessage[] {
    return this.#receipts.flatMap((r) => (r.message === undefined ? [] : [r.message]));
  }

  clearReceived(): void {
    this.#receipts.length = 0;
  }

  /** Resolves with the first receipt (already held or still to come) that satisfies `predicate`. */
  waitFor(predicate: (r: VirtualReceipt) => boolean = () => true): Promise<VirtualReceipt> {
    const held = this.#receipts.find(predicate);
    if (held !== undefined) return Promise.resolve(held);
    return new Promise((resolve) => {
      const listener = (r: VirtualReceipt): void => {
        if (!predicate(r)) return;
        this.off('received', listener);
        resolve(r);
      };
      this.on('received', listener);
    });
  }

  setAutoAck(on: boolean): void {
    this.#autoAck = on;
  }

  /** Transmit raw frame bytes to the gateway (fragmented on the way when the radio fragments). */
  async inject(frame: Uint8Array): Promise<void> {
    if (!this.#inRange) throw new RadioError('PEER_LOST', `virtual peer ${this.id} is out of range`, { peerId: this.id });
    const size = this.#link.fragmentSize(this);
    const units = size === undefined ? [frame] : FragmentLink.fragment(frame, size);
    await this.#link.latency();
    for (const unit of units) {
      if (!this.#inRange) throw new RadioError('PEER_LOST', `virtual peer ${this.id} went out of range mid-frame`, { peerId: this.id });
      this.#link.toGateway(this, unit);
    }
  }

  /** Encode (in this peer's codec unless told) and transmit; returns the frame sent. */
  async send(message: MeshMessage, format: FrameFormat = this.preferredFormat): Promise<Uint8Array> {
    const frame = encodeFrame(message, format);
    await this.inject(frame);
    return frame;
  }

  /** A text message from this peer; `requires_ack` by default, as the reference sends. */
  async say(text: string, options: { recipient?: string; appId?: string; requiresAck?: boolean; format?: FrameFormat } = {}): Promise<MeshMessage> {
    const message = createMessage({
      id: MessageId.random(),
      sender: this.address,
      recipient: options.recipient ?? this.#link.defaultRecipient(),
      app_id: options.appId ?? DEMO_APP_ID,
      priority: 'medium',
      ttl: DEFAULT_TTL,
      hop_count: 0,
      timestamp: BigInt(Math.round(this.#link.now())),
      content: text,
      requires_ack: options.requiresAck ?? true,
    });
    await this.send(message, options.format);
    return message;
  }

  /** Out of range: the radio reports the peer down and its queued frames fail with PEER_LOST. */
  vanish(): void {
    if (!this.#inRange) return;
    this.#inRange = false;
    this.#inbound.clear();
    this.#stopTalking();
    // A stalled link is gone with the peer; whatever waited on it now fails as out of range.
    this.resume();
    this.#link.wentOutOfRange(this);
  }

  /** Back in range: the radio reports the peer up again. */
  appear(): void {
    if (this.#inRange) return;
    this.#inRange = true;
    this.#link.cameIntoRange(this);
    this.#startTalking();
  }

  /** Stall the link: writes to this peer stop completing until `resume()` (fills the radio's queue). */
  pause(): void {
    this.#paused ??= [];
  }

  resume(): void {
    const waiting = this.#paused ?? [];
    this.#paused = undefined;
    for (const release of waiting) release();
  }

  /** @internal the radio writes one unit (a fragment, or a whole frame when not fragmenting). */
  async takeFromGateway(unit: Uint8Array, fragmented: boolean): Promise<void> {
    if (this.#paused !== undefined) await new Promise<void>((resolve) => this.#paused!.push(resolve));
    if (!this.#inRange) throw new RadioError('PEER_LOST', `virtual peer ${this.id} is out of range`, { peerId: this.id });
    const frame = fragmented ? this.#inbound.push(unit) : unit;
    if (frame !== undefined) this.#onFrame(frame);
  }

  /** @internal */
  stop(): void {
    this.#stopTalking();
    this.resume();
    this.#inRange = false;
  }

  #onFrame(frame: Uint8Array): void {
    const receipt: VirtualReceipt = { frame, at: this.#link.now() };
    try {
      const { message, format } = decodeFrameWithFormat(frame);
      receipt.message = message;
      receipt.format = format;
    } catch (err) {
      receipt.error = (err as { code?: string }).code ?? String(err);
    }
    this.#receipts.push(receipt);
    this.emit('received', receipt);
    const m = receipt.message;
    if (m !== undefined && this.#autoAck && m.requires_ack && m.recipient === this.address && !isAck(m)) {
      const ack = buildAck(m, { localId: this.address, appId: SIM_APP_ID, transport: 'ble', now: () => Math.round(this.#link.now()) });
      this.#acksSent += 1;
      // `inject` waits for the link's latency (at least one turn), so the ACK leaves after the write that carried
      // the message has completed, as on a real link.
      this.send(ack).catch((err: unknown) => this.#link.log({ peer: this.id, err: String(err) }, 'virtual peer ACK not sent'));
    }
  }

  #startTalking(): void {
    const talk = this.#talk;
    if (talk === undefined || this.#talkTimer !== undefined) return;
    const tick = (): void => {
      this.#talkTimer = this.#link.schedule(tick, talk.everyMs);
      this.#talkCount += 1;
      const options: { recipient?: string; appId?: string } = {};
      if (talk.recipient !== undefined) options.recipient = talk.recipient;
      if (talk.appId !== undefined) options.appId = talk.appId;
      this.say(talk.text ?? `hello from ${this.id} #${this.#talkCount}`, options).catch((err: unknown) =>
        this.#link.log({ peer: this.id, err: String(err) }, 'virtual peer could not talk'),
      );
    };
    this.#talkTimer = this.#link.schedule(tick, talk.everyMs);
  }

  #stopTalking(): void {
    if (this.#talkTimer !== undefined) this.#link.cancel(this.#talkTimer);
    this.#talkTimer = undefined;
  }
}

export class SimulatedRadio extends RadioBase {
  readonly #config: ResolvedSimulatedConfig;
  readonly #deps: SimulatedRadioDeps;
  readonly #virtual = new Map<string, VirtualPeer>();
  readonly #links = new Map<string, FragmentLink>();
  readonly #peerLink: PeerLink;

  constructor(config: ResolvedSimulatedConfig, base: RadioBaseOptions, deps: SimulatedRadioDeps = {}) {
    super(config.id, 'simulated', base);
    this.#config = config;
    this.#deps = deps;
    this.#peerLink = {
      now: () => this.clock.now(),
      fragmentSize: (peer) => (this.#config.fragment ? fragmentSizeForMtu(peer.mtu) : undefined),
      latency: () => this.#latency(),
      toGateway: (peer, unit) => this.#fromPeer(peer, unit),
      cameIntoRange: (peer) => this.#peerAppeared(peer),
      wentOutOfRange: (peer) => {
        this.#links.get(peer.id)?.clear();
        this.peerDown(peer.id, 'out of range');
      },
      defaultRecipient: () => this.#deps.localAddress ?? 'gateway',
      schedule: (fn, ms) => this.clock.setTimeout(fn, ms),
      cancel: (handle) => this.clock.clearTimeout(handle),
      log: (details, msg) => this.log.debug({ radio: this.id, ...details }, msg),
    };
    for (const peer of config.peers) this.#virtual.set(peer.id, new VirtualPeer(config.id, peer, this.#peerLink));
  }

  /** A virtual peer by id. */
  virtualPeer(id: string): VirtualPeer | undefined {
    return this.#virtual.get(id);
  }

  virtualPeers(): VirtualPeer[] {
    return [...this.#virtual.values()];
  }

  /** A new virtual peer; it comes into range at once when the radio is open. */
  addPeer(config: SimulatedPeerConfig): VirtualPeer {
    if (this.#virtual.has(config.id)) {
      throw new RadioError('BAD_CONFIG', `radio ${this.id} already has a virtual peer ${config.id}`, { path: 'peers.id' });
    }
    const resolved = resolveRadioConfig({ id: this.id, kind: 'simulated', peers: [config] }) as ResolvedSimulatedConfig;
    const peer = new VirtualPeer(this.id, resolved.peers[0], this.#peerLink);
    this.#virtual.set(peer.id, peer);
    if (this.state === 'ready') peer.appear();
    return peer;
  }

  /** Remove a virtual peer for good. */
  removePeer(id: string): void {
    const peer = this.#virtual.get(id);
    if (peer === undefined) return;
    peer.vanish();
    peer.stop();
    this.#virtual.delete(id);
    this.#links.delete(id);
    this.peerDown(id, 'removed', true);
  }

  protected override maxFrameBytes(peer: RadioPeer): number {
    return this.#config.fragment ? FragmentLink.maxFrameBytes(fragmentSizeForMtu(peer.mtu)) : MAX_MESH_FRAME_BYTES;
  }

  protected async doOpen(): Promise<void> {
    this.setState('ready', counted(this.#virtual.size, 'virtual peer'));
    for (const peer of this.#virtual.values()) peer.appear();
  }

  protected async doClose(): Promise<void> {
    for (const peer of this.#virtual.values()) peer.stop();
    for (const link of this.#links.values()) link.clear();
  }

  protected async writeFrame(peerId: string, frame: Uint8Array): Promise<void> {
    const peer = this.#virtual.get(peerId);
    if (peer === undefined || !peer.inRange) {
      throw new RadioError('PEER_LOST', `virtual peer ${peerId} is out of range`, { radioId: this.id, peerId });
    }
    const size = this.#config.fragment ? fragmentSizeForMtu(peer.mtu) : undefined;
    const units = size === undefined ? [frame] : FragmentLink.fragment(frame, size);
    await this.#latency();
    for (const unit of units) await peer.takeFromGateway(unit, size !== undefined);
  }

  #peerAppeared(peer: VirtualPeer): void {
    const info: Omit<RadioPeer, 'connected' | 'queued'> = { id: peer.id, address: peer.address, wireVersions: [...peer.wireVersions] };
    if (peer.mtu !== undefined) info.mtu = peer.mtu;
    if (peer.rssi !== undefined) info.rssi = peer.rssi;
    if (peer.battery !== undefined) info.battery = peer.battery;
    if (peer.load !== undefined) info.load = peer.load;
    this.peerUp(info);
  }

  #fromPeer(peer: VirtualPeer, unit: Uint8Array): void {
    if (!this.#config.fragment) {
      this.deliver(peer.id, unit, peer.rssi);
      return;
    }
    let link = this.#links.get(peer.id);
    if (link === undefined) {
      link = new FragmentLink({
        maxAssemblies: 16,
        now: () => this.clock.now(),
        onDrop: (reason, details) => this.countDrop(reason, { peerId: peer.id, ...details }),
      });
      this.#links.set(peer.id, link);
    }
    const frame = link.push(unit);
    if (frame !== undefined) this.deliver(peer.id, frame, peer.rssi);
  }

  #latency(): Promise<void> {
    const ms = this.#config.latencyMs;
    // Even a zero-latency link completes in a later turn, so a sender never sees its own write re-enter it.
    return new Promise((resolve) => (ms > 0 ? this.clock.setTimeout(resolve, ms) : setImmediate(resolve)));
  }
}
