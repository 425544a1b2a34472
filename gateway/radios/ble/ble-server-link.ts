/**
 * One central connected to the gateway's GATT server (the gateway in the peripheral role), from accept to
 * disconnect.
 *
 * Inbound: the central writes BLE fragments to MESSAGE (without response, or with); each write goes through the same
 * per-link `FragmentLink` reassembly as the central role's notifications. Outbound: once the central has subscribed
 * (CCCD `01 00` or `02 00`), whole frames are cut to the central's `maxValueSize` (ATT_MTU − 3, capped at 512 by the
 * reference rule) and sent as notifications (or indications when MESSAGE offers only those), one outstanding at a
 * time, at least `min_write_gap_ms` apart:
 * - a notification counts as sent when bleno reports it handed to the controller (`notify`), or after
 *   `write_gate_ms` when no report comes (the reference's 30 ms write gate);
 * - an indication counts as sent on the central's confirmation (`indicate`), or after the reference's 250 ms
 *   indicate watchdog.
 */
import { fragmentSizeForMtu, FRAGMENT_HEADER_FIXED_BYTES } from '../../../lib/mesh/ble-fragment';
import { MeshEncodeError } from '../../../lib/mesh/errors';
import type { BlenoHandle, BlenoUpdateValue } from './ble-bleno';
import { FragmentLink } from '../fragment-link';
import type { ResolvedBleConfig } from '../radio-config';
import { normalisePeerRef } from '../radio-config';
import type { Clock } from '../../../lib/clock';
import { RadioError } from '../radio';

/** Android drops inbound writes above this; so do we. */
const MAX_INBOUND_WRITE_BYTES = 4096;
/** The reference's indicate gate: the next indication goes when no confirmation came by then. */
export const INDICATE_GATE_MS = 250;
/** The smallest notification that carries a fragment header (36-character id) and one byte of data. */
const MIN_FRAGMENT_BYTES = FRAGMENT_HEADER_FIXED_BYTES + 36 + 1;

export type ServerUpdateMode = 'notify' | 'indicate';

export interface BleServerLinkOptions {
  handle: BlenoHandle;
  /** The central's address as bleno reports it (`aa:bb:cc:dd:ee:ff`). */
  clientAddress: string;
  config: ResolvedBleConfig;
  clock: Clock;
  radioId: string;
  /** What MESSAGE sends: bleno's HCI server notifies whenever the characteristic offers notify. */
  mode: ServerUpdateMode;
  maxAssemblies: number;
  onFrame: (frame: Uint8Array) => void;
  onDrop: (reason: string, details: Record<string, unknown>) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (err: RadioError) => void;
  timer: unknown;
}

export class BleServerLink {
  readonly handle: BlenoHandle;
  readonly clientAddress: string;
  /** The central's link id in the form noble gives peripheral ids (12 lowercase hex digits). */
  readonly clientId: string;
  /** The radio peer this link belongs to (the client id, or the peer it was merged into). */
  peerId: string;
  /** IDENTITY as served to this central in its current read sequence (offset 0 starts a new one). */
  identityBlob: Uint8Array | undefined;
  readonly #o: BleServerLinkOptions;
  readonly #inbound: FragmentLink;
  #connected = true;
  #update: BlenoUpdateValue | undefined;
  #maxValueSize: number | undefined;
  #attMtu: number | undefined;
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #pending: ((err?: RadioError) => void) | undefined;
  readonly #waiters = new Set<Waiter>();

  constructor(options: BleServerLinkOptions) {
    this.#o = options;
    this.handle = options.handle;
    this.clientAddress = options.clientAddress;
    this.clientId = normalisePeerRef(options.clientAddress);
    this.peerId = this.clientId;
    this.#inbound = new FragmentLink({
      maxAssemblies: options.maxAssemblies,
      now: () => options.clock.now(),
      onDrop: options.onDrop,
    });
  }

  get connected(): boolean {
    return this.#connected;
  }

  get subscribed(): boolean {
    return this.#connected && this.#update !== undefined;
  }

  /** ATT_MTU − 3 as the central's subscription (or MTU exchange) reported it. */
  get mtu(): number | undefined {
    if (this.#maxValueSize !== undefined) return this.#maxValueSize;
    return this.#attMtu === undefined ? undefined : this.#attMtu - 3;
  }

  /**
   * One whole notification, header included: the reference rule on the reported size, but never more than the
   * central can take (bleno would cut a longer value short without a word).
   */
  get fragmentSize(): number {
    const size = this.mtu;
    return size === undefined ? fragmentSizeForMtu(undefined) : Math.min(fragmentSizeForMtu(size), size);
  }

  /** The largest frame this link can carry now (0 when the central's MTU leaves no room for a fragment). */
  get maxFrameBytes(): number {
    const size = this.fragmentSize;
    return size < MIN_FRAGMENT_BYTES ? 0 : FragmentLink.maxFrameBytes(size);
  }

  /** A write to MESSAGE. */
  receive(data: Buffer): void {
    if (!this.#connected) return;
    if (data.length > MAX_INBOUND_WRITE_BYTES) {
      this.#o.onDrop('fragment_oversize_write', { bytes: data.length, peerId: this.peerId });
      return;
    }
    const frame = this.#inbound.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (frame !== undefined) this.#o.onFrame(frame);
  }

  subscribe(maxValueSize: number, update: BlenoUpdateValue): void {
    if (!this.#connected) return;
    this.#maxValueSize = maxValueSize;
    this.#update = update;
    for (const waiter of [...this.#waiters]) this.#settleWaiter(waiter);
  }

  unsubscribe(): void {
    this.#update = undefined;
    this.#pending?.(this.#notSubscribed('unsubscribed while a frame was being sent'));
  }

  /** An MTU exchange that could be attributed to this link. */
  setAttMtu(attMtu: number): void {
    this.#attMtu = attMtu;
    // bleno cuts every value to the connection's ATT_MTU − 3 at send time: a grown MTU is usable at once.
    if (this.#maxValueSize !== undefined && attMtu - 3 > this.#maxValueSize) this.#maxValueSize = attMtu - 3;
  }

  /** bleno handed a notification to the controller. */
  notified(): void {
    if (this.#o.mode === 'notify') this.#pending?.();
  }

  /** The central confirmed an indication. */
  confirmed(): void {
    if (this.#o.mode === 'indicate') this.#pending?.();
  }

  /** Fragment and send one whole frame, paced. */
  async write(frame: Uint8Array): Promise<void> {
    if (!this.#connected) throw this.#lostError();
    await this.#awaitSubscription();
    const size = this.fragmentSize;
    const tooLarge = (cause?: unknown): RadioError =>
      new RadioError('FRAME_TOO_LARGE', `frame of ${frame.length} bytes does not fit central ${this.clientId} at ${size}-byte notifications`, {
        radioId: this.#o.radioId,
        peerId: this.peerId,
        bytes: frame.length,
        max: this.maxFrameBytes,
      }, { cause });
    // A central that never exchanged the MTU (ATT MTU 23) takes 20 bytes: less than a fragment header.
    if (size < MIN_FRAGMENT_BYTES) throw tooLarge();
    let fragments: Uint8Array[];
    try {
      fragments = FragmentLink.fragment(frame, size);
    } catch (err) {
      if (err instanceof MeshEncodeError) throw tooLarge(err);
      throw err;
    }
    for (const fragment of fragments) {
      await this.#pace();
      if (!this.#connected) throw this.#lostError();
      if (this.#update === undefined) throw this.#notSubscribed('unsubscribed while a frame was being sent');
      await this.#sendOne(this.#update, fragment);
      this.#lastSentAt = this.#o.clock.now();
    }
  }

  /** The central disconnected (or the radio let it go): everything in flight fails with `PEER_LOST`. */
  lost(): void {
    if (!this.#connected) return;
    this.#connected = false;
    this.#update = undefined;
    this.identityBlob = undefined;
    this.#pending?.(this.#lostError());
    for (const waiter of [...this.#waiters]) this.#settleWaiter(waiter, this.#lostError());
    this.#inbound.clear();
  }

  sweep(): void {
    this.#inbound.sweep();
  }

  #awaitSubscription(): Promise<void> {
    if (this.#update !== undefined) return Promise.resolve();
    const ms = this.#o.config.handshakeTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: undefined };
      waiter.timer = this.#o.clock.setTimeout(
        () => this.#settleWaiter(waiter, this.#notSubscribed(`central ${this.clientId} did not subscribe to MESSAGE within ${ms} ms`)),
        ms,
      );
      this.#waiters.add(waiter);
    });
  }

  #settleWaiter(waiter: Waiter, err?: RadioError): void {
    if (!this.#waiters.delete(waiter)) return;
    this.#o.clock.clearTimeout(waiter.timer);
    if (err === undefined) waiter.resolve();
    else waiter.reject(err);
  }

  #pace(): Promise<void> {
    const wait = this.#lastSentAt + this.#o.config.minWriteGapMs - this.#o.clock.now();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => this.#o.clock.setTimeout(resolve, wait));
  }

  #sendOne(update: BlenoUpdateValue, fragment: Uint8Array): Promise<void> {
    const { clock, config, mode } = this.#o;
    return new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = (err?: RadioError): void => {
        if (done) return;
        done = true;
        clock.clearTimeout(timer);
        if (this.#pending === finish) this.#pending = undefined;
        if (err === undefined) resolve();
        else reject(err);
      };
      // Neither a notification nor an unconfirmed indication blocks the link for long (reference gates).
      const timer = clock.setTimeout(() => finish(), mode === 'indicate' ? INDICATE_GATE_MS : config.writeGateMs);
      // Set before sending: the HCI binding reports a notification synchronously, inside `update`.
      this.#pending = finish;
      try {
        update(Buffer.from(fragment.buffer, fragment.byteOffset, fragment.byteLength));
      } catch (err) {
        // The binding throws when the connection is already gone underneath.
        finish(new RadioError('WRITE_FAILED', `BLE ${mode} failed: ${err instanceof Error ? err.message : String(err)}`, { radioId: this.#o.radioId, peerId: this.peerId }, { cause: err }));
      }
    });
  }

  #lostError(): RadioError {
    return new RadioError('PEER_LOST', `BLE central ${this.clientId} is not connected`, { radioId: this.#o.radioId, peerId: this.peerId });
  }

  #notSubscribed(why: string): RadioError {
    return new RadioError('NOT_SUBSCRIBED', why, { radioId: this.#o.radioId, peerId: this.peerId });
  }
}
