/**
 * The seam between radios and the mesh router: the only thing the router knows of radios.
 *
 * A radio moves *whole mesh frames* (JSON floor or binary wire v1 bytes) between the gateway and its link peers.
 * Everything below a whole frame stays inside the radio: BLE fragments and GATT, serial framing and CRCs,
 * connection management, pacing. The router picks the codec for a peer from `wireVersions` (binary only to a
 * peer whose list contains 1) and hands the radio finished bytes.
 *
 * Contract (CONTRACTS.md "gateway/radios"; members may be added, never removed):
 * - `open()` never rejects for a missing adapter, package or port: it reports state `unsupported` (the package or
 *   adapter is absent) or `degraded` (the device is expected back: an unplugged serial radio) and keeps the process up.
 * - `send()` resolves when the radio has written the frame (every fragment), and rejects with a `RadioError`
 *   otherwise. Each peer has a bounded queue; a full queue rejects at once with `QUEUE_FULL` (backpressure: the
 *   caller decides whether to drop, retry or park). Frames still queued when a peer goes away reject with
 *   `PEER_LOST`, and with `CLOSED` when the radio closes, so an accepted frame is never silently lost.
 * - Events are delivered synchronously from the radio; a listener that throws is logged and does not break the radio.
 */
import { CodedError } from '../../lib/coded-error';
import type { TypedEvents } from '../../lib/typed-emitter';

export type RadioKind = 'ble' | 'serial' | 'simulated' | 'daemon';

/**
 * - `starting`: `open()` is running.
 * - `ready`: the radio works (scanning / port open / simulation running); it may have zero peers.
 * - `degraded`: the radio works partly or is recovering (scan restarting, port unplugged and being reopened).
 * - `unsupported`: this host cannot run it (optional package missing, no adapter); the gateway keeps its other radios.
 * - `error`: a fault it cannot recover from without a change (bad configuration, permission denied); `detail` says which.
 * - `stopped`: `close()` finished (or never opened).
 */
export type RadioState = 'starting' | 'ready' | 'degraded' | 'unsupported' | 'error' | 'stopped';

export interface RadioPeer {
  /** The link id, stable while the peer is known to this radio (BLE peripheral id, `serial:<path>`, a simulated name). */
  id: string;
  /** The peer's mesh address (`off1…`) once the radio knows it; for BLE it is verified through the IDENTITY blob. */
  address?: string;
  /** The wire versions the peer advertised; `[1]` when binary-capable, `[]` when only the JSON floor is known to work. */
  wireVersions: number[];
  /** The negotiated MTU as the platform reports it (ATT_MTU − 3 for BLE), when known. */
  mtu?: number;
  /** Last received signal strength in dBm, when known. */
  rssi?: number;
  connected: boolean;
  /** Frames waiting in this peer's write queue (added to the contract: lets the router and status page see backpressure). */
  queued?: number;
  /** Why a connected link cannot carry mesh frames (BLE: an ATT MTU too small for one fragment header). */
  problem?: string;
  /**
   * Battery (0–100 %) and load (0–254, the node's own scale) from the peer's signed MeshAdvertisementData (BLE
   * IDENTITY), when it reports them; a mains-powered node reports no battery.
   */
  battery?: number;
  load?: number;
}

export interface InboundFrame {
  radioId: string;
  peerId: string;
  /** One whole mesh frame, reassembled/deframed; not yet decoded. */
  frame: Uint8Array;
  rssi?: number;
  /** Epoch milliseconds from the radio's clock. */
  receivedAt: number;
  /** The peer's verified mesh address when the radio knows it (the transport peer identity for the control gate). */
  peerAddress?: string;
}

export interface RadioStatus {
  radioId: string;
  state: RadioState;
  detail?: string;
  /** Connected peers. */
  peers: number;
  /** Kind of the radio (added to the contract so a status consumer needs no lookup). */
  kind?: RadioKind;
  /** Counters since open (added to the contract; all optional for a consumer). */
  counters?: RadioCounters;
}

export interface RadioCounters {
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Inbound units the radio dropped (bad fragment, bad CRC, oversized, unverified peer). */
  dropped: number;
  /** `send()` calls refused because the peer's queue was full. */
  queueFull: number;
  /** Writes that failed after being accepted. */
  writeErrors: number;
  /** BLE: links whose ATT MTU cannot carry one fragment header; absent until the first. */
  mtuTooSmall?: number;
}

export type PeerChange = 'up' | 'down' | 'updated';
export type PeerEvent = RadioPeer & { radioId: string; change: PeerChange };

export interface RadioEvents {
  frame: (f: InboundFrame) => void;
  peer: (p: PeerEvent) => void;
  status: (s: RadioStatus) => void;
  /**
   * A peer's queue refused a frame (`QUEUE_FULL`) and has room again: `free` frames would be taken now. A radio
   * may never emit it; a caller that parks refused frames keeps a slower fallback.
   */
  writable: (e: { radioId: string; peerId: string; free: number }) => void;
}

/** A typed EventEmitter of `RadioEvents` (`on`/`once`/`off`). */
export interface Radio extends TypedEvents<RadioEvents> {
  readonly id: string;
  readonly kind: RadioKind;
  /** Never rejects for a missing adapter: reports state `unsupported` instead. Idempotent. */
  open(): Promise<void>;
  /** A whole mesh frame; the radio fragments/frames it; resolves when written. Rejects with `RadioError`. */
  send(peerId: string, frame: Uint8Array): Promise<void>;
  peers(): RadioPeer[];
  status(): RadioStatus;
  /** Rejects every queued frame with `CLOSED`, disconnects, reports `stopped`. Idempotent; never rejects. */
  close(): Promise<void>;
}

export type RadioErrorCode =
  /** `send()` to a peer id this radio does not know or that is not connected. */
  | 'PEER_UNKNOWN'
  /** The peer disconnected while the frame was queued or being written. */
  | 'PEER_LOST'
  /** The peer's bounded write queue is full (backpressure). */
  | 'QUEUE_FULL'
  /** The radio is closed (or closing). */
  | 'CLOSED'
  /** `send()` before `open()` finished, or while the radio is `unsupported`/`error`. */
  | 'NOT_READY'
  /** The frame exceeds what this radio can carry (1 MiB transport cap, 512 BLE fragments, serial max length). */
  | 'FRAME_TOO_LARGE'
  /** An empty frame: no mesh frame is empty. */
  | 'FRAME_EMPTY'
  /** The link refused or failed the write (the platform error is the `cause`). */
  | 'WRITE_FAILED'
  /** No write completion arrived in time. */
  | 'WRITE_TIMEOUT'
  /** BLE: the peer is a central connected to the gateway's GATT server that has not subscribed to MESSAGE (in time). */
  | 'NOT_SUBSCRIBED'
  /** The optional package or the adapter is missing on this host. */
  | 'UNSUPPORTED'
  /** The radio configuration is invalid; `details.path` names the setting. */
  | 'BAD_CONFIG';

export class RadioError extends CodedError<RadioErrorCode> {}

/** The transport cap of the reference (`DEFAULT_MAX_MESSAGE_SIZE`): no radio carries a larger frame. */
export const MAX_MESH_FRAME_BYTES = 1_048_576;

/** The logger shape radios need; a pino logger satisfies it. Never given secrets. */
export interface RadioLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

