/**
 * The mesh router: what the gateway does with every frame a radio hands it, as an ordinary, role-blind peer of the
 * mesh (gateway contract §7.2). Every protocol rule comes from lib/mesh; this file only sequences them:
 *
 *   decode (either codec) → drop our own echoes → ACK? settle our pending send, or relay it →
 *   dedup (delivery dedup for frames to us, relay-seen cache for the rest) → control gate for control content →
 *   to us: hand to the extensions, ACK once every extension that claimed it has really taken it (MQTT PUBACK, hub
 *   `message.ack`), re-ACK a duplicate the same way → not to us: publish as observed and forward by TTL/hop rules.
 *
 * The gateway never settles a message it relays (contract §7.1): it only ACKs frames addressed to itself. Sealed
 * payloads (`__MLS_ENC__…`) are carried as the opaque strings they are; nothing here decrypts. Frames go to each
 * neighbour in the codec it can read: binary v1 only to peers that advertised wire version 1, JSON otherwise. The
 * advertisement is the `wire_versions` of the neighbour's last key package that passed the gate (as in the
 * reference); until one came, what the radio knows of the peer (its configuration, a serial HELLO, or a binary
 * frame it sent) stands in for it.
 */
import type { Logger } from 'pino';
import { ackSettles, ackTarget, buildAck, isAck, receiveActions, type AckSource, type ReceiveOutcome } from '../lib/mesh/ack';
import { checkControlGate, type ControlRatchet } from '../lib/mesh/control-gate';
import { Deduplicator, createRelaySeenCache } from '../lib/mesh/dedup';
import { forwardDecision, relayTargets } from '../lib/mesh/forwarding';
import { decodeFrameWithFormat, encodeFrame, type FrameFormat } from '../lib/mesh/frame';
import type { MeshMessage } from '../lib/mesh/message';
import type { KeyPackageCapabilities } from '../lib/mesh/key-package';
import { isSenderVerified } from '../lib/mesh/sender-verified';
import { WireCapabilities } from '../lib/mesh/wire-capabilities';
import type { Transport } from '../lib/mesh/transport';
import type { DeliveryClaims, EventBus, MeshAckEvent, Reception } from './bus';
import type { CoreConfig } from './config/types';
import { GatewayError } from './errors';
import type { Clock } from '../lib/clock';
import type { Counter, Metrics } from './metrics';
import { NeighbourTable, type Neighbour } from './neighbours';
import { ParkedWrites } from './parked-writes';
import type { InboundFrame, PeerEvent, Radio, RadioPeer, RadioStatus } from './radios/radio';


export interface SendOutcome {
  id: string;
  /** Neighbours the frame was written to (`radioId/peerId`). */
  via: string[];
  /** Resolves with the recipient's ACK, or `undefined` after `mesh.ack_timeout_ms`; absent when no ACK was asked. */
  ack?: Promise<MeshAckEvent | undefined>;
}

/** What extensions may do with the mesh. */
export interface MeshApi {
  readonly address: string;
  /** Sends a message originated by the gateway (sender = its address). Rejects with `NO_ROUTE` when no neighbour is up. */
  send(message: MeshMessage): Promise<SendOutcome>;
  /** `keyPackage`: what the peer's last key package that passed the gate advertised (absent before one came). */
  neighbours(): Array<{ radioId: string; peer: RadioPeer; keyPackage?: KeyPackageCapabilities }>;
  /** What `address` advertised in its last key package that passed the gate, `undefined` before one came. */
  keyPackage(address: string): KeyPackageCapabilities | undefined;
  radios(): RadioStatus[];
  /**
   * Joins a radio an extension owns (the gateway-daemon's attached devices) to the router after start: its peers
   * become neighbours and its frames are routed like any other radio's. With `recipientOnly` its peers are sent only
   * frames addressed to them, never picked as relays. Returns the function that detaches it.
   */
  addRadio(radio: Radio, options?: { recipientOnly?: boolean }): () => void;
}

export interface RouterOptions {
  address: string;
  appId: string;
  radios: readonly Radio[];
  bus: EventBus;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  mesh: CoreConfig['mesh'];
  random?: () => number;
  /** Senders proven on control signatures v2; without it, v1 stays accepted from everybody. */
  controlRatchet?: ControlRatchet;
}

interface PendingAck {
  recipient: string;
  resolve: (ack: MeshAckEvent | undefined) => void;
  timer: unknown;
}

/**
 * A full peer queue is backpressure, not failure. Refused frames park per peer and go again when the radio says the
 * queue drained (gateway/parked-writes.ts); a radio that never says so is probed every 2 s. A frame waits at most as
 * long as the reference's 12 tries from 50 ms up to 2 s take (mesh-reference-facts.md §3 "Pacing"), about 15 s.
 * Parked writes are bounded so that a dead link cannot hoard memory.
 */
const BACKPRESSURE_PROBE_MS = 2000;
const BACKPRESSURE_MAX_WAIT_MS = 15_350;
const MAX_PARKED_WRITES = 4096;

interface ParkedWrite {
  radio: Radio;
  n: Neighbour;
  frame: Uint8Array;
  origin: string;
  parkedAt?: number;
}

const laneKey = (radioId: string, peerId: string): string => `${radioId}\u0000${peerId}`;

/** Every radio today carries BLE mesh frames (a serial radio is a BLE mesh node on USB); ACKs say so. */
const ARRIVAL_TRANSPORT: Transport = 'ble';

class Delivery implements DeliveryClaims {
  private open = 0;
  private failed = false;
  private sealed = false;
  private done = false;

  constructor(private readonly onSettled: (delivered: boolean) => void) {}

  claim(_by: string): (delivered: boolean) => void {
    if (this.done) throw new GatewayError('CLAIM_TOO_LATE', 'a delivery can only be claimed while its event is being handled');
    this.open += 1;
    let settled = false;
    return (delivered: boolean) => {
      if (settled) return;
      settled = true;
      this.open -= 1;
      if (!delivered) this.failed = true;
      this.check();
    };
  }

  /** Called after every listener has seen the event: from now on, the last settle decides. */
  seal(): void {
    this.sealed = true;
    this.check();
  }

  private check(): void {
    if (!this.sealed || this.open > 0 || this.done) return;
    this.done = true;
    this.onSettled(!this.failed);
  }
}

/** Signed control ids remembered against replays: a day, and 16 384 ids (about 1.5 MB). */
const CONTROL_SEEN_CAPACITY = 16_384;
const CONTROL_SEEN_RETENTION_MS = 24 * 3600_000;

/** `isSenderVerified` (lib/mesh/sender-verified.ts) on what the radio told about the delivering peer. */
export function senderVerified(message: MeshMessage, rx: Reception, passedGate: boolean): boolean {
  return isSenderVerified(message, { peerAddress: rx.peerAddress, signed: passedGate });
}

export class MeshRouter implements MeshApi {
  readonly address: string;
  private readonly neighbourTable = new NeighbourTable();
  private readonly delivered: Deduplicator;
  private readonly relaySeen: Deduplicator;
  private readonly controlSeen: Deduplicator;
  private readonly pendingAcks = new Map<string, PendingAck>();
  private readonly wireCapabilities = new WireCapabilities();
  private readonly timers = new Set<unknown>();
  private readonly detach: Array<() => void> = [];
  private readonly random: () => number;
  /** The configured radios, then any an extension added (`addRadio`). */
  private readonly radioList: Radio[];
  /** Radios whose peers take only frames addressed to them (`addRadio` with `recipientOnly`). */
  private readonly recipientOnly = new Set<string>();
  private readonly c: {
    framesIn: Counter;
    messagesIn: Counter;
    rejected: Counter;
    duplicates: Counter;
    acksSent: Counter;
    acksReceived: Counter;
    forwarded: Counter;
    notForwarded: Counter;
    sendErrors: Counter;
    sent: Counter;
  };
  private running = false;
  private readonly parked: ParkedWrites<ParkedWrite>;
  /** Deliveries handed to the extensions whose claims have not all settled (each holds a message until then). */
  private pendingDeliveries = 0;

  constructor(private readonly options: RouterOptions) {
    this.address = options.address;
    this.random = options.random ?? Math.random;
    this.radioList = [...options.radios];
    const now = () => options.clock.now();
    this.delivered = new Deduplicator({ capacity: options.mesh.dedup_max_entries, retentionMs: options.mesh.dedup_ttl_s * 1000, now });
    this.relaySeen = createRelaySeenCache({ now });
    this.controlSeen = new Deduplicator({ capacity: CONTROL_SEEN_CAPACITY, retentionMs: CONTROL_SEEN_RETENTION_MS, now, eviction: 'fifo' });
    const m = options.metrics;
    this.c = {
      framesIn: m.counter('clawling_gateway_frames_received_total', 'Frames handed over by the radios.'),
      messagesIn: m.counter('clawling_gateway_messages_received_total', 'Decoded mesh messages, duplicates excluded, by radio.'),
      rejected: m.counter('clawling_gateway_frames_rejected_total', 'Frames dropped before delivery, by reason code.'),
      duplicates: m.counter('clawling_gateway_duplicates_total', 'Messages already seen (dedup hits).'),
      acksSent: m.counter('clawling_gateway_acks_sent_total', 'Mesh ACKs the gateway sent for messages addressed to it.'),
      acksReceived: m.counter('clawling_gateway_acks_received_total', 'Mesh ACKs addressed to the gateway.'),
      forwarded: m.counter('clawling_gateway_forwarded_total', 'Frames relayed to other neighbours.'),
      notForwarded: m.counter('clawling_gateway_not_forwarded_total', 'Frames for others not relayed, by reason.'),
      sendErrors: m.counter('clawling_gateway_radio_send_errors_total', 'Radio writes that failed, by radio error code.'),
      sent: m.counter('clawling_gateway_messages_sent_total', 'Messages the gateway originated (from MQTT or the hub).'),
    };
    this.parked = new ParkedWrites<ParkedWrite>({
      clock: options.clock,
      capacity: MAX_PARKED_WRITES,
      maxWaitMs: BACKPRESSURE_MAX_WAIT_MS,
      probeMs: BACKPRESSURE_PROBE_MS,
      retry: (_key, w) => {
        if (this.running) this.write(w.radio, w.n, w.frame, w.origin, w);
      },
      giveUp: (_key, items, why) => {
        for (const w of items) this.writeFailed(w, why === 'expired' ? 'QUEUE_FULL' : 'PEER_LOST');
      },
    });
    m.gauge('clawling_gateway_parked_writes', 'Frames a full peer queue refused, waiting for it to drain.', () => this.parked.size);
    m.gauge('clawling_gateway_neighbours', 'Connected neighbours over all radios.', () => this.neighbourTable.size);
    m.gauge('clawling_gateway_pending_acks', 'Messages sent by the gateway awaiting their ACK.', () => this.pendingAcks.size);
    m.gauge('clawling_gateway_pending_deliveries', 'Messages to the gateway taken and not yet ACKed (waiting for MQTT or the hub).', () => this.pendingDeliveryCount);
  }

  /** Listens to every radio. The radios are opened by the controller, not here. */
  start(): void {
    if (this.running) return;
    this.running = true;
    for (const radio of this.radioList) this.listen(radio);
  }

  addRadio(radio: Radio, options: { recipientOnly?: boolean } = {}): () => void {
    if (!this.radioList.includes(radio)) this.radioList.push(radio);
    if (options.recipientOnly) this.recipientOnly.add(radio.id);
    const stopListening = this.running ? this.listen(radio) : undefined;
    return () => {
      stopListening?.();
      const i = this.radioList.indexOf(radio);
      if (i >= 0) this.radioList.splice(i, 1);
      this.recipientOnly.delete(radio.id);
      this.neighbourTable.removeRadio(radio.id);
    };
  }

  private listen(radio: Radio): () => void {
    {
      const onFrame = (f: InboundFrame): void => this.handleFrame(f);
      const onPeer = (p: PeerEvent): void => this.handlePeer(radio.id, p);
      const onStatus = (s: RadioStatus): void => {
        if (s.state !== 'ready' && s.state !== 'degraded') this.neighbourTable.removeRadio(radio.id);
        this.options.bus.emit('radioStatus', s);
      };
      const onWritable = (e: { peerId: string; free: number }): void => this.parked.writable(laneKey(radio.id, e.peerId), e.free);
      radio.on('frame', onFrame);
      radio.on('peer', onPeer);
      radio.on('status', onStatus);
      radio.on('writable', onWritable);
      const off = (): void => {
        radio.off('frame', onFrame);
        radio.off('peer', onPeer);
        radio.off('status', onStatus);
        radio.off('writable', onWritable);
      };
      this.detach.push(off);
      for (const p of radio.peers()) if (p.connected) this.neighbourTable.upsert(radio.id, p);
      return off;
    }
  }

  /** Stops taking frames (first step of a shutdown); pending ACK waits resolve with `undefined`. */
  stop(): void {
    this.running = false;
    for (const d of this.detach.splice(0)) d();
    for (const t of this.timers) this.options.clock.clearTimeout(t);
    this.timers.clear();
    this.parked.clear();
    for (const [id, p] of this.pendingAcks) {
      this.options.clock.clearTimeout(p.timer);
      p.resolve(undefined);
      this.pendingAcks.delete(id);
    }
  }

  /** Messages to the gateway taken and not yet ACKed (the count admission control bounds). */
  get pendingDeliveryCount(): number {
    return this.pendingDeliveries;
  }

  neighbours(): Array<{ radioId: string; peer: RadioPeer; keyPackage?: KeyPackageCapabilities }> {
    return this.neighbourTable.all().map((n) => {
      const keyPackage = n.peer.address !== undefined ? this.wireCapabilities.of(n.peer.address) : undefined;
      return { radioId: n.radioId, peer: { ...n.peer }, ...(keyPackage !== undefined ? { keyPackage } : {}) };
    });
  }

  keyPackage(address: string): KeyPackageCapabilities | undefined {
    return this.wireCapabilities.of(address);
  }

  radios(): RadioStatus[] {
    return this.radioList.map((r) => r.status());
  }

  /** One frame from a radio, start to finish. Never throws: every failure is a counted, logged drop. */
  handleFrame(f: InboundFrame): void {
    this.c.framesIn.inc();
    const known = this.neighbourTable.get(f.radioId, f.peerId);
    const rx: Reception = { radioId: f.radioId, peerId: f.peerId, receivedAt: f.receivedAt };
    const peerAddress = f.peerAddress ?? known?.peer.address;
    if (peerAddress !== undefined) rx.peerAddress = peerAddress;
    if (f.rssi !== undefined) rx.rssi = f.rssi;

    let message: MeshMessage;
    let format: FrameFormat;
    try {
      ({ message, format } = decodeFrameWithFormat(f.frame, { maxFrameBytes: this.options.mesh.max_frame_bytes }));
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'DECODE_FAILED';
      this.reject(rx, code, (err as Error).message);
      return;
    }
    const id = message.id.toString();
    const toGateway = message.recipient === this.address;

    if (message.sender === this.address && !toGateway) {
      this.reject(rx, 'OWN_SENDER', 'a frame claiming the gateway as sender came back', id);
      return;
    }

    if (isAck(message)) {
      this.handleAck(message, id, rx, toGateway);
      return;
    }

    if (toGateway) {
      const duplicate = this.delivered.check(id);
      if (this.busy(message)) {
        // Not taken, so not ACKed: the sender keeps it and sends it again. A new id is forgotten so that the
        // resend counts as new; a duplicate's original is still pending and will be ACKed when it settles.
        if (!duplicate) this.delivered.unmark(id);
        this.reject(rx, 'GATEWAY_BUSY', `${this.pendingDeliveries} messages wait for MQTT or the hub; the sender will retry`, id);
        return;
      }
      if (duplicate) {
        this.c.duplicates.inc();
        this.deliver(message, id, f, format, rx, 'duplicate', senderVerified(message, rx, false));
        return;
      }
    } else if (this.relaySeen.check(id)) {
      this.c.duplicates.inc();
      return;
    }

    const gate = checkControlGate(message, {
      ...(rx.peerAddress !== undefined ? { transportPeerId: rx.peerAddress } : {}),
      transport: ARRIVAL_TRANSPORT,
      requireTransportIdentity: this.options.mesh.require_transport_identity,
      ...(this.options.controlRatchet ? { ratchet: this.options.controlRatchet } : {}),
      ...(this.options.mesh.control_freshness_enforced ? { freshness: { now: this.options.clock.now() } } : {}),
    });
    if (!gate.accepted) {
      const actions = receiveActions(message, 'security-rejected');
      if (actions.unmarkDedup) (toGateway ? this.delivered : this.relaySeen).unmark(id);
      this.reject(rx, gate.reason, gate.detail, id);
      return;
    }

    // The signature does not cover the hop count (relays rewrite it), so a signed control frame heard once can be
    // sent again later. The message deduplicator forgets under ordinary traffic (10 000 unsigned frames push an id
    // out); only frames whose signature passed enter this cache, so junk cannot evict it.
    if (gate.gated && gate.signed && this.controlSeen.check(id)) {
      this.c.duplicates.inc();
      if (toGateway) this.deliver(message, id, f, format, rx, 'duplicate', false);
      return;
    }

    if (gate.gated) {
      const capabilities = this.wireCapabilities.learn(message);
      if (capabilities !== undefined) this.options.logger.debug({ sender: message.sender, ...capabilities }, 'key package: capabilities');
    }

    this.c.messagesIn.inc({ radio: f.radioId });
    if (toGateway) {
      this.deliver(message, id, f, format, rx, gate.gated ? 'control-consumed' : 'delivered', senderVerified(message, rx, gate.signed));
      return;
    }
    this.options.bus.emit('meshMessage', { message, id, frame: f.frame, codec: format, rx, toGateway: false, duplicate: false, senderVerified: senderVerified(message, rx, gate.signed) });
    this.forward(message, rx);
  }

  private handleAck(message: MeshMessage, id: string, rx: Reception, toGateway: boolean): void {
    if (!toGateway) {
      // An ACK in transit is an ordinary message to relay; it is never delivered or published as a message.
      if (this.relaySeen.check(id)) {
        this.c.duplicates.inc();
        return;
      }
      this.forward(message, rx);
      return;
    }
    if (this.delivered.check(id)) {
      this.c.duplicates.inc();
      return;
    }
    this.c.acksReceived.inc();
    const target = ackTarget(message) ?? '';
    const event: MeshAckEvent = {
      ackFor: target.toLowerCase(),
      from: message.sender,
      transport: message.metadata.get('ack_transport') ?? '',
      hopCount: Number(message.metadata.get('ack_hop_count') ?? message.hop_count),
      rx,
    };
    const pending = this.pendingAcks.get(event.ackFor);
    if (pending && ackSettles(message, { id: event.ackFor, recipient: pending.recipient }, rx.peerAddress)) {
      this.pendingAcks.delete(event.ackFor);
      this.options.clock.clearTimeout(pending.timer);
      pending.resolve(event);
    }
    this.options.bus.emit('meshAck', event);
  }

  /**
   * Hands a message addressed to the gateway to the extensions; the ACK (when asked for) goes once every claim has
   * settled, and not at all when one failed, in which case the id is forgotten so that the resend is processed anew.
   */
  private deliver(message: MeshMessage, id: string, f: InboundFrame, format: FrameFormat, rx: Reception, outcome: ReceiveOutcome, verified: boolean): void {
    const actions = receiveActions(message, outcome);
    // Only what the ACK needs waits for the claims (until the PUBACK, the hub's answer): not the whole message.
    const source: AckSource = { id: message.id, sender: message.sender, hop_count: message.hop_count };
    this.pendingDeliveries += 1;
    const delivery = new Delivery((delivered) => {
      this.pendingDeliveries -= 1;
      if (!delivered) {
        this.delivered.unmark(id);
        return;
      }
      if (actions.ack) this.sendAck(source, rx);
    });
    this.options.bus.emit('meshMessage', {
      message,
      id,
      frame: f.frame,
      codec: format,
      rx,
      toGateway: true,
      duplicate: outcome === 'duplicate',
      senderVerified: verified,
      ...(actions.ack ? { delivery } : {}),
    });
    delivery.seal();
  }

  /**
   * Admission control: every message the extensions hold until MQTT or the hub answers costs memory, and a broker
   * or hub that is away (or slower than the radios) would otherwise let them pile up without bound. Past the
   * bound, a message that asks for an ACK is turned away unACKed, which the mesh treats as not delivered: its sender
   * retries. One that asks for none cannot be retried, so it is still taken (the outboxes bound it on disk).
   */
  private busy(message: MeshMessage): boolean {
    return message.requires_ack && this.pendingDeliveries >= this.options.mesh.max_pending_deliveries;
  }

  private sendAck(original: AckSource, rx: Reception): void {
    let ack: MeshMessage;
    try {
      ack = buildAck(original, { localId: this.address, appId: this.options.appId, transport: ARRIVAL_TRANSPORT, now: () => this.options.clock.now() });
    } catch (err) {
      this.options.logger.error({ err, id: original.id.toString() }, 'cannot build the ACK');
      return;
    }
    this.c.acksSent.inc();
    // The arrival link first (it can reach the sender, directly or through the neighbour that relayed it), then the mesh.
    const arrival = this.neighbourTable.get(rx.radioId, rx.peerId);
    const targets = arrival ? [arrival] : this.targetsFor(ack, undefined);
    this.writeTo(ack, targets, 'ack');
  }

  private forward(message: MeshMessage, rx: Reception): void {
    if (!this.options.mesh.forward) return;
    const decision = forwardDecision(message, { localId: this.address, neighbourCount: this.neighbourTable.size });
    if (!decision.forward) {
      this.c.notForwarded.inc({ reason: decision.reason });
      return;
    }
    const targets = this.targetsFor(decision.next, NeighbourTable.key(rx.radioId, rx.peerId));
    if (targets.length === 0) {
      this.c.notForwarded.inc({ reason: 'NO_NEIGHBOUR' });
      return;
    }
    const { forward_jitter_min_ms: lo, forward_jitter_max_ms: hi } = this.options.mesh;
    const delay = hi > 0 ? Math.round(lo + this.random() * (hi - lo)) : 0;
    const go = (): void => {
      if (!this.running) return;
      this.c.forwarded.inc();
      this.writeTo(decision.next, targets, 'forward');
    };
    if (delay === 0) go();
    else {
      // The reference waits 20–200 ms before relaying so that neighbours hearing the same frame do not collide.
      const t = this.options.clock.setTimeout(() => {
        this.timers.delete(t);
        go();
      }, delay);
      this.timers.add(t);
    }
  }

  /** The neighbours a frame goes to, by the reference's relay choice (recipient direct, else up to `fanout`). */
  private targetsFor(message: MeshMessage, arrivalKey: string | undefined): Neighbour[] {
    let all = this.neighbourTable.all();
    if (this.recipientOnly.size > 0) all = all.filter((n) => !this.recipientOnly.has(n.radioId) || n.peer.address === message.recipient);
    if (all.length === 0) return [];
    const idOf = (n: Neighbour): string => n.peer.address ?? n.key;
    const byId = new Map(all.map((n) => [idOf(n), n]));
    const arrival = arrivalKey !== undefined ? all.find((n) => n.key === arrivalKey) : undefined;
    const ids = relayTargets(message, {
      localId: this.address,
      neighbours: all.map(idOf),
      ...(arrival ? { arrivalPeer: idOf(arrival) } : {}),
      fanout: this.options.mesh.relay_fanout,
    });
    return ids.map((i) => byId.get(i)).filter((n): n is Neighbour => n !== undefined);
  }

  /** Encodes once per codec and writes to each target; failures are counted, never thrown. */
  private writeTo(message: MeshMessage, targets: Neighbour[], origin: 'gateway' | 'forward' | 'ack'): string[] {
    const frames: Partial<Record<FrameFormat, Uint8Array>> = {};
    const via: string[] = [];
    for (const n of targets) {
      const format: FrameFormat = this.readsBinary(n) ? 'binary' : 'json';
      let frame = frames[format];
      if (!frame) {
        try {
          frame = encodeFrame(message, format);
        } catch (err) {
          this.options.logger.error({ err, id: message.id.toString() }, 'cannot encode a frame');
          return via;
        }
        frames[format] = frame;
      }
      const radio = this.radioList.find((r) => r.id === n.radioId);
      if (!radio) continue;
      via.push(n.key);
      this.write(radio, n, frame, origin);
    }
    if (via.length) this.options.bus.emit('meshSent', { message, via, origin });
    return via;
  }

  /** Whether neighbour `n` decodes binary v1: its key package says so, or (before one came) its radio does. */
  private readsBinary(n: Neighbour): boolean {
    const advertised = n.peer.address !== undefined ? this.wireCapabilities.binary(n.peer.address) : undefined;
    return advertised ?? n.peer.wireVersions.includes(1);
  }

  /** `retried`: a parked write going again (back in its place, as old as it was, if refused once more). */
  private write(radio: Radio, n: Neighbour, frame: Uint8Array, origin: string, retried?: ParkedWrite): void {
    const key = laneKey(n.radioId, n.peer.id);
    // Frames already wait for this peer: this one queues behind them, in order.
    if (retried === undefined && this.parked.waiting(key)) {
      const w = { radio, n, frame, origin };
      if (!this.parked.park(key, w)) this.writeFailed(w, 'QUEUE_FULL');
      return;
    }
    radio.send(n.peer.id, frame).catch((err: unknown) => {
      const code = (err as { code?: string }).code ?? 'WRITE_FAILED';
      const w = retried ?? { radio, n, frame, origin };
      if (code === 'QUEUE_FULL' && this.running && this.parked.park(key, w)) return;
      this.writeFailed(w, code);
    });
  }

  private writeFailed(w: ParkedWrite, code: string): void {
    this.c.sendErrors.inc({ radio: w.n.radioId, code });
    this.options.logger.debug({ radio: w.n.radioId, peer: w.n.peer.id, code, origin: w.origin }, 'radio write failed');
  }

  async send(message: MeshMessage): Promise<SendOutcome> {
    if (message.sender !== this.address) {
      throw new GatewayError('BAD_SENDER', `messages from the gateway must have its address (${this.address}) as sender`);
    }
    const targets = this.targetsFor(message, undefined);
    if (targets.length === 0) throw new GatewayError('NO_ROUTE', 'no neighbour is connected on any radio');
    const id = message.id.toString();
    // Our own message coming back through the mesh must not be taken for a new one.
    this.relaySeen.mark(id);
    let ack: Promise<MeshAckEvent | undefined> | undefined;
    if (message.requires_ack && !isAck(message)) {
      ack = new Promise((resolve) => {
        const timer = this.options.clock.setTimeout(() => {
          this.pendingAcks.delete(id);
          resolve(undefined);
        }, this.options.mesh.ack_timeout_ms);
        this.pendingAcks.get(id)?.resolve(undefined);
        this.pendingAcks.set(id, { recipient: message.recipient, resolve, timer });
      });
    }
    const via = this.writeTo(message, targets, 'gateway');
    this.c.sent.inc();
    return ack ? { id, via, ack } : { id, via };
  }

  private handlePeer(radioId: string, p: PeerEvent): void {
    const { radioId: _r, change, ...peer } = p;
    if (change === 'down' || !peer.connected) {
      this.neighbourTable.remove(radioId, peer.id);
      this.parked.drop(laneKey(radioId, peer.id));
    } else this.neighbourTable.upsert(radioId, peer);
    this.options.bus.emit('peerChange', { radioId, peer, change });
  }

  private reject(rx: Reception, code: string, reason: string, messageId?: string): void {
    this.c.rejected.inc({ reason: code });
    this.options.logger.debug({ radio: rx.radioId, peer: rx.peerId, code, id: messageId }, 'frame dropped');
    this.options.bus.emit('frameRejected', { rx, code, reason, ...(messageId !== undefined ? { messageId } : {}) });
  }
}
