/**
 * The radios of `bench/gateway.bench.ts` when the peers live in another process ("remote peers", the default): a
 * `RadioBase` whose neighbours are the bench driver. What a real radio does inside the gateway happens here as in
 * the simulated radio — reassembly of inbound BLE fragments (`FragmentLink`), per-peer write queues, fragmenting of
 * every outbound frame at the peer's MTU — but what a *peer* does (encode and
 * fragment its messages, reassemble and decode the gateway's ACKs) is the driver's work, in its own process, so
 * that the gateway's CPU figure is the gateway's alone.
 *
 * Inbound units arrive on a byte stream of their own (`bench/radio-link.ts`), a batch at a time: `u16be length,
 * bytes` repeated (a stand-in for the radio's own I/O, like a BLE notification or a serial read).
 */
import { fragmentSizeForMtu } from '../lib/mesh/ble-fragment';
import { decodeFrameWithFormat, encodeFrame, type FrameFormat } from '../lib/mesh/frame';
import { createMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';
import { ackTarget, isAck } from '../lib/mesh/ack';
import { FragmentLink } from '../gateway/radios/fragment-link';
import { identityFromSeed } from '../gateway/radios/mesh-identity';
import { RadioBase, type RadioBaseOptions } from '../gateway/radios/radio-base';
import type { RadioPeer } from '../gateway/radios/radio';

export interface RemotePeer {
  id: string;
  address: string;
  wireVersions: number[];
}

/** The peers of radio `radioId`, with the addresses the simulated radio would give them (same seeds). */
export function remotePeers(radioId: string, peers: Array<{ id: string; wire_versions: number[] }>): RemotePeer[] {
  return peers.map((p) => ({ id: p.id, address: identityFromSeed(`clawling-sim:${radioId}:${p.id}`).address, wireVersions: [...p.wire_versions] }));
}

/** One sensor reading from `sender` to the gateway, as the gateway benches' peers send it, encoded. */
export function benchFrame(sender: string, recipient: string, content: string, format: FrameFormat, id = MessageId.random()): Uint8Array {
  return encodeFrame(
    createMessage({
      id,
      sender,
      recipient,
      app_id: 'bench',
      priority: 'medium',
      ttl: 8,
      hop_count: 0,
      timestamp: BigInt(Date.now()),
      content,
      metadata: { room: 'kitchen', sensor: 'temperature' },
    }),
    format,
  );
}

export class RemotePeersRadio extends RadioBase {
  readonly #peers: RemotePeer[];
  readonly #links = new Map<string, FragmentLink>();
  /** Frames the gateway wrote (ACKs), and the fragments they took. */
  readonly written = { frames: 0, units: 0 };
  /** While set, every written ACK is decoded (driver work, only during the latency run) and reported here. */
  onAck: ((ackFor: string) => void) | undefined;

  constructor(id: string, peers: RemotePeer[], base: RadioBaseOptions) {
    super(id, 'simulated', base);
    this.#peers = peers;
  }

  /** One batch of BLE writes from peer `peerId`, as packed by `packUnitBytes`; `bytes` is read during the call only. */
  receive(peerId: string, bytes: Uint8Array): void {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let link = this.#links.get(peerId);
    if (link === undefined) {
      link = new FragmentLink({ maxAssemblies: 16, now: () => this.clock.now(), onDrop: (reason, details) => this.countDrop(reason, { peerId, ...details }) });
      this.#links.set(peerId, link);
    }
    for (let at = 0; at < view.length; ) {
      const n = view.readUInt16BE(at);
      const frame = link.push(view.subarray(at + 2, at + 2 + n));
      at += 2 + n;
      if (frame !== undefined) this.deliver(peerId, frame);
    }
  }

  protected override maxFrameBytes(peer: RadioPeer): number {
    return FragmentLink.maxFrameBytes(fragmentSizeForMtu(peer.mtu));
  }

  protected async doOpen(): Promise<void> {
    this.setState('ready', `${this.#peers.length} remote peers`);
    for (const p of this.#peers) this.peerUp({ id: p.id, address: p.address, wireVersions: [...p.wireVersions] });
  }

  protected async doClose(): Promise<void> {
    for (const link of this.#links.values()) link.clear();
  }

  protected async writeFrame(_peerId: string, frame: Uint8Array): Promise<void> {
    // The gateway's share of a write: the fragments at the peer's MTU (185 by default), handed to the link, which
    // takes them at once (a controller buffer, as with BLE writes without response). A link that took one write per
    // turn of the event loop would leave thousands of ACKs queued behind a burst and measure the queue, not the gateway.
    const units = FragmentLink.fragment(frame, fragmentSizeForMtu(undefined));
    this.written.frames += 1;
    this.written.units += units.length;
    if (this.onAck) {
      const { message } = decodeFrameWithFormat(frame);
      if (isAck(message)) this.onAck(ackTarget(message) ?? '');
    }
  }
}
