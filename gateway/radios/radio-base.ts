/**
 * What every radio shares: state and status events, the peer table, per-peer write queues, `send()` checks,
 * counters and listener isolation. An implementation supplies `doOpen`, `doClose` and `writeFrame`, and reports
 * what its link does through `setState`, `peerUp`, `peerUpdate`, `peerDown` and `deliver`.
 */
import type { Clock } from '../../lib/clock';
import { PeerWriteQueue } from './peer-write-queue';
import {
  MAX_MESH_FRAME_BYTES,
  type PeerChange,
  type Radio,
  type RadioCounters,
  RadioError,
  type RadioEvents,
  type RadioKind,
  type RadioLogger,
  type RadioPeer,
  type RadioState,
  type RadioStatus,
} from './radio';
import { TypedEmitter } from '../../lib/typed-emitter';

export interface RadioBaseOptions {
  logger: RadioLogger;
  clock: Clock;
  /** Frames per peer queue (waiting + in flight). */
  queueLimit: number;
  /** Bytes per peer queue (waiting + in flight). */
  queueByteLimit: number;
}

interface PeerRecord {
  peer: RadioPeer;
  queue: PeerWriteQueue | undefined;
}

export type PeerInfo = Omit<RadioPeer, 'connected' | 'queued'>;

export abstract class RadioBase extends TypedEmitter<RadioEvents> implements Radio {
  readonly id: string;
  readonly kind: RadioKind;
  protected readonly log: RadioLogger;
  protected readonly clock: Clock;
  readonly #options: RadioBaseOptions;
  readonly #peers = new Map<string, PeerRecord>();
  readonly #counters: RadioCounters = {
    framesIn: 0,
    framesOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    dropped: 0,
    queueFull: 0,
    writeErrors: 0,
  };
  #state: RadioState = 'stopped';
  #detail: string | undefined;
  #opening: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;

  protected constructor(id: string, kind: RadioKind, options: RadioBaseOptions) {
    super((err, event) => options.logger.error({ radio: id, event: String(event), err }, 'radio listener threw'));
    this.id = id;
    this.kind = kind;
    this.log = options.logger;
    this.clock = options.clock;
    this.#options = options;
  }

  /** Brings the link up; afterwards the state says how it went. */
  protected abstract doOpen(): Promise<void>;
  /** Tears the link down; called once, after every queue has been failed with `CLOSED`. */
  protected abstract doClose(): Promise<void>;
  /** Writes one whole frame to a connected peer; called one frame at a time per peer. */
  protected abstract writeFrame(peerId: string, frame: Uint8Array): Promise<void>;
  /**
   * Optional: writes the frames that queued up behind the last write as one link write, in order (a serial line:
   * one port write and one drain for all of them). Called instead of `writeFrame` when more than one frame waits.
   * Rejects when the write failed (all its frames fail); may resolve with one entry per frame, the error of a frame
   * it refused by itself (undefined: written).
   */
  protected writeFrames?(peerId: string, frames: Uint8Array[]): Promise<ReadonlyArray<unknown> | void>;

  /** The largest frame this peer can carry now; radios narrow it (BLE: 512 fragments at the peer's MTU). */
  protected maxFrameBytes(_peer: RadioPeer): number {
    return MAX_MESH_FRAME_BYTES;
  }

  get state(): RadioState {
    return this.#state;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  open(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#opening !== undefined) return this.#opening;
    this.#opening = this.#runOpen();
    return this.#opening;
  }

  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#closed = true;
    this.#closing = this.#runClose();
    return this.#closing;
  }

  send(peerId: string, frame: Uint8Array): Promise<void> {
    if (this.#closed) return Promise.reject(new RadioError('CLOSED', `radio ${this.id} is closed`, { radioId: this.id }));
    if (this.#state !== 'ready' && this.#state !== 'degraded') {
      return Promise.reject(
        new RadioError('NOT_READY', `radio ${this.id} is ${this.#state}`, { radioId: this.id, state: this.#state }),
      );
    }
    if (!(frame instanceof Uint8Array) || frame.length === 0) {
      return Promise.reject(new RadioError('FRAME_EMPTY', 'a mesh frame is never empty', { radioId: this.id, peerId }));
    }
    const record = this.#peers.get(peerId);
    if (record === undefined) {
      return Promise.reject(
        new RadioError('PEER_UNKNOWN', `radio ${this.id} has no peer ${peerId}`, { radioId: this.id, peerId }),
      );
    }
    if (!record.peer.connected || record.queue === undefined) {
      return Promise.reject(
        new RadioError('PEER_LOST', `peer ${peerId} of radio ${this.id} is not connected`, { radioId: this.id, peerId }),
      );
    }
    const max = this.maxFrameBytes(record.peer);
    if (frame.length > max) {
      return Promise.reject(
        new RadioError('FRAME_TOO_LARGE', `frame of ${frame.length} bytes exceeds ${max} for peer ${peerId}`, {
          radioId: this.id,
          peerId,
          bytes: frame.length,
          max,
        }),
      );
    }
    return record.queue.push(frame).catch((err: unknown) => {
      if (err instanceof RadioError && err.code === 'QUEUE_FULL') this.#counters.queueFull += 1;
      throw err;
    });
  }

  peers(): RadioPeer[] {
    return [...this.#peers.values()].map((record) => this.#snapshot(record));
  }

  status(): RadioStatus {
    const status: RadioStatus = {
      radioId: this.id,
      kind: this.kind,
      state: this.#state,
      peers: this.#connectedCount(),
      counters: { ...this.#counters },
    };
    if (this.#detail !== undefined) status.detail = this.#detail;
    return status;
  }

  /** One known peer, or undefined. */
  protected peer(peerId: string): RadioPeer | undefined {
    const record = this.#peers.get(peerId);
    return record === undefined ? undefined : this.#snapshot(record);
  }

  protected setState(state: RadioState, detail?: string): void {
    if (this.#closed && state !== 'stopped') return;
    if (state === this.#state && detail === this.#detail) return;
    this.#state = state;
    this.#detail = detail;
    this.log.info({ radio: this.id, state, detail }, 'radio state');
    this.emit('status', this.status());
  }

  /** A peer is connected and ready for frames (or connected again). */
  protected peerUp(info: PeerInfo): void {
    if (this.#closed) return;
    const existing = this.#peers.get(info.id);
    if (existing !== undefined && existing.peer.connected) {
      this.peerUpdate(info.id, info);
      return;
    }
    const peer: RadioPeer = { ...info, wireVersions: [...info.wireVersions], connected: true };
    const queue = new PeerWriteQueue({
      peerId: info.id,
      limit: this.#options.queueLimit,
      byteLimit: this.#options.queueByteLimit,
      write: (frame) => this.#write(info.id, frame),
      onSpace: (free) => this.emit('writable', { radioId: this.id, peerId: info.id, free }),
      ...(this.writeFrames !== undefined ? { writeMany: (frames: Uint8Array[]) => this.#writeMany(info.id, frames) } : {}),
    });
    this.#peers.set(info.id, { peer, queue });
    this.#emitPeer(peer, 'up');
    this.emit('status', this.status());
  }

  /** New facts about a known peer (MTU, RSSI, address, wire versions). Emits `updated` only when something changed. */
  protected peerUpdate(peerId: string, patch: Partial<PeerInfo>): void {
    const record = this.#peers.get(peerId);
    if (record === undefined || this.#closed) return;
    let changed = false;
    for (const [key, value] of Object.entries(patch) as Array<[keyof PeerInfo, unknown]>) {
      if (key === 'id' || value === undefined) continue;
      const before = record.peer[key];
      const same = Array.isArray(value) && Array.isArray(before)
        ? value.length === before.length && value.every((v, i) => v === before[i])
        : before === value;
      if (!same) {
        (record.peer as unknown as Record<string, unknown>)[key] = Array.isArray(value) ? [...value] : value;
        changed = true;
      }
    }
    if (changed && record.peer.connected) this.#emitPeer(record.peer, 'updated');
  }

  /**
   * The peer is gone. Its queued frames reject with `PEER_LOST`. With `forget` the peer leaves the table;
   * otherwise it stays listed as disconnected (the radio expects it back, e.g. BLE reconnect with backoff).
   */
  protected peerDown(peerId: string, reason: string, forget = false): void {
    const record = this.#peers.get(peerId);
    if (record === undefined) return;
    const wasConnected = record.peer.connected;
    record.queue?.fail(
      new RadioError('PEER_LOST', `peer ${peerId} of radio ${this.id} went away: ${reason}`, {
        radioId: this.id,
        peerId,
        reason,
      }),
    );
    record.queue = undefined;
    record.peer.connected = false;
    if (forget) this.#peers.delete(peerId);
    if (wasConnected && !this.#closed) {
      this.#emitPeer(record.peer, 'down');
      this.emit('status', this.status());
    }
  }

  /** A whole inbound mesh frame from a peer. */
  protected deliver(peerId: string, frame: Uint8Array, rssi?: number): void {
    if (this.#closed) return;
    this.#counters.framesIn += 1;
    this.#counters.bytesIn += frame.length;
    const record = this.#peers.get(peerId);
    const inbound: Parameters<RadioEvents['frame']>[0] = {
      radioId: this.id,
      peerId,
      frame,
      receivedAt: this.clock.now(),
    };
    const signal = rssi ?? record?.peer.rssi;
    if (signal !== undefined) inbound.rssi = signal;
    if (record?.peer.address !== undefined) inbound.peerAddress = record.peer.address;
    this.emit('frame', inbound);
  }

  /** Counts an inbound unit the radio refused (bad fragment, CRC, unverified peer) and logs why. */
  /** A link came up that cannot carry one fragment (BLE ATT MTU 23); the radio logs and marks the peer itself. */
  protected countMtuTooSmall(): void {
    this.#counters.mtuTooSmall = (this.#counters.mtuTooSmall ?? 0) + 1;
  }

  protected countDrop(reason: string, details: Record<string, unknown> = {}): void {
    this.#counters.dropped += 1;
    this.log.debug({ radio: this.id, reason, ...details }, 'radio dropped inbound data');
  }

  async #runOpen(): Promise<void> {
    this.setState('starting');
    try {
      await this.doOpen();
    } catch (err) {
      if (this.#closed) return;
      if (err instanceof RadioError && err.code === 'UNSUPPORTED') {
        this.log.warn({ radio: this.id, err: err.message }, 'radio unsupported on this host');
        this.setState('unsupported', err.message);
      } else {
        this.log.error({ radio: this.id, err }, 'radio failed to open');
        this.setState('error', err instanceof Error ? err.message : String(err));
      }
    }
  }

  async #runClose(): Promise<void> {
    // Let a running open() finish first, so doClose sees everything it has to tear down.
    if (this.#opening !== undefined) await this.#opening;
    for (const [peerId, record] of this.#peers) {
      record.queue?.fail(new RadioError('CLOSED', `radio ${this.id} is closing`, { radioId: this.id, peerId }));
      record.queue = undefined;
      record.peer.connected = false;
    }
    try {
      await this.doClose();
    } catch (err) {
      this.log.warn({ radio: this.id, err }, 'radio close reported an error');
    }
    this.#peers.clear();
    this.#state = 'stopped';
    this.#detail = undefined;
    this.log.info({ radio: this.id, state: 'stopped' }, 'radio state');
    this.emit('status', this.status());
  }

  async #write(peerId: string, frame: Uint8Array): Promise<void> {
    try {
      await this.writeFrame(peerId, frame);
    } catch (err) {
      this.#counters.writeErrors += 1;
      throw this.#writeError(peerId, err);
    }
    this.#counters.framesOut += 1;
    this.#counters.bytesOut += frame.length;
  }

  async #writeMany(peerId: string, frames: Uint8Array[]): Promise<unknown[]> {
    let outcomes: ReadonlyArray<unknown> | void;
    try {
      outcomes = await this.writeFrames!(peerId, frames);
    } catch (err) {
      this.#counters.writeErrors += frames.length;
      throw this.#writeError(peerId, err);
    }
    return frames.map((frame, i) => {
      const err = outcomes ? outcomes[i] : undefined;
      if (err !== undefined) {
        this.#counters.writeErrors += 1;
        return this.#writeError(peerId, err);
      }
      this.#counters.framesOut += 1;
      this.#counters.bytesOut += frame.length;
      return undefined;
    });
  }

  #writeError(peerId: string, err: unknown): RadioError {
    if (err instanceof RadioError) return err;
    return new RadioError('WRITE_FAILED', `write to peer ${peerId} failed: ${err instanceof Error ? err.message : String(err)}`, {
      radioId: this.id,
      peerId,
    }, { cause: err });
  }

  #snapshot(record: PeerRecord): RadioPeer {
    const peer: RadioPeer = { ...record.peer, wireVersions: [...record.peer.wireVersions] };
    peer.queued = record.queue?.depth ?? 0;
    return peer;
  }

  #connectedCount(): number {
    let n = 0;
    for (const record of this.#peers.values()) if (record.peer.connected) n += 1;
    return n;
  }

  #emitPeer(peer: RadioPeer, change: PeerChange): void {
    this.emit('peer', { ...peer, wireVersions: [...peer.wireVersions], radioId: this.id, change });
  }
}
