/**
 * One WebSocket connection and everything the hub keeps per connection: identity once authenticated, the negotiated
 * capabilities and reliability generation, the replay position, the v2 `dseq` ledger, presence subscriptions, and
 * the connection's own faults. Writing to the socket goes through here so that backpressure, the replay gate and
 * the "drop after N frames" fault apply to every frame alike.
 */
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { HubUser } from './directory';
import type { AckMode, ConnectionPhase, DeviceInfo, DropMode } from './types';
import type { InboxRow } from './inbox';

// The one capability list of the protocol (guide §3.3), the client's and the hub's alike.
import type { CapabilityName as Capability } from '../lib/hub/capabilities';

export { CAPABILITY_NAMES as CAPABILITIES } from '../lib/hub/capabilities';
export type { Capability };

/** One stamped `dseq` awaiting `message.sync_ack`. */
export interface LedgerEntry {
  dseq: number;
  /** Storage seq this frame covers: acking it advances the device cursor to here. */
  covers: number;
  sent_at: number;
  /** history.transit is delete-on-ack (§11.7). */
  transit: InboxRow | undefined;
}

export interface DseqState {
  epoch: string;
  next: number;
  acked: number;
  ledger: LedgerEntry[];
  /** Index of the first unacked entry in `ledger` (a queue without shifting). */
  head: number;
  last_ack_at: number;
  /** Coverage carried by the last stamped frame; a drained pump with more coverage owes a `sync.mark`. */
  covered: number;
  /** Pending gap from the skip-dseq fault. */
  skip: number;
}

export type SessionPhase = ConnectionPhase | 'authenticating';

export class Session {
  phase: SessionPhase = 'handshake';
  user: HubUser | undefined;
  deviceId = '';
  capabilities: Partial<Record<Capability, boolean>> = {};
  clientVersion: string | undefined;
  protocolVersion: number | undefined;
  /** `reliable_delivery` honoured: `seq` stamped, `message.cursor_ack` and `history.truncated` apply. */
  v1 = false;
  v2: DseqState | undefined;
  /** Highest storage seq the delivery pump has processed (delivered or skipped) on this connection. */
  pos = 0;
  /** Highest storage seq actually written. */
  sentSeq = 0;
  /** Deferred `notify.signal` ids this replay owes (deferred-notify.ts). */
  deferred: string[] = [];
  /** Frames held while replay runs, so that `replay.done` precedes all live traffic (§11.5). */
  liveQueue: string[] = [];
  readonly presence = new Set<string>();
  framesSent = 0;
  dropped = 0;
  dropAfter: { remaining: number; mode: DropMode } | undefined;
  /** The drop-after fault fired: the socket is about to go and takes no more frames. */
  dropping = false;
  /** The half-open fault: nothing more is written to this socket (counted in `withheld`), though it stays open. */
  silent = false;
  withheld = 0;
  /** Uplinks that arrived between `connect` and `hello-ok`. */
  early: string[] = [];
  handshakeTimer: NodeJS.Timeout | undefined;
  pingTimer: NodeJS.Timeout | undefined;
  lastPongAt: number;
  // Delivery pump state.
  pumpScheduled = false;
  pumping = false;
  throttled = false;
  waitingDrain = false;
  /** Legacy advance-on-write: writes not yet confirmed, and the skipped seq to apply once they are. */
  pendingWrites = 0;
  skipAdvance = 0;
  /** A write failed: from here on nothing may move this connection's legacy cursor (the failed row must replay). */
  writeFailed = false;
  closeCode: number | undefined;

  constructor(
    readonly id: string,
    readonly ws: WebSocket,
    readonly socket: Duplex,
    readonly nonce: string,
    readonly connectedAt: number,
    readonly remote: string,
  ) {
    this.lastPongAt = connectedAt;
  }

  get authenticated(): boolean {
    return this.user !== undefined && (this.phase === 'replaying' || this.phase === 'live');
  }

  get open(): boolean {
    return this.phase !== 'closed';
  }

  has(capability: Capability): boolean {
    return this.capabilities[capability] === true;
  }

  get ackMode(): AckMode {
    return this.v2 ? 'dseq' : this.v1 ? 'seq' : 'legacy';
  }

  get unacked(): number {
    return this.v2 ? this.v2.ledger.length - this.v2.head : 0;
  }

  /** Writes one frame; `onWritten` runs once the socket accepted it. False when the connection is gone. */
  write(text: string, onWritten?: (ok: boolean) => void): boolean {
    if (this.phase === 'closed' || this.dropping || this.ws.readyState !== this.ws.OPEN) return false;
    if (this.silent) {
      // Not written, and said so: the caller keeps the row for replay, as with a connection that is going away.
      this.withheld++;
      return false;
    }
    this.framesSent++;
    const drop = this.dropAfter;
    const last = drop !== undefined && --drop.remaining <= 0;
    if (last) {
      // Nothing after the Nth frame goes out; the drop happens once that frame is on the wire.
      this.dropAfter = undefined;
      this.dropping = true;
    }
    this.ws.send(text, (err) => {
      onWritten?.(!err);
      if (last) this.drop(drop.mode);
    });
    return true;
  }

  /** True when the socket's queue is above the limit and best-effort frames should be dropped. */
  congested(limit: number): boolean {
    return this.ws.bufferedAmount > limit;
  }

  /** A best-effort frame: held during replay, dropped under backpressure (§9.3 "no kick on backpressure"). */
  sendEphemeral(text: string, limit: number): boolean {
    if (!this.authenticated) return false;
    if (this.phase === 'replaying') {
      this.liveQueue.push(text);
      return true;
    }
    if (this.congested(limit)) {
      this.dropped++;
      return false;
    }
    return this.write(text);
  }

  /** A reply to this connection's own uplink (ack, error, pong, snapshot): immediate, still dropped under backpressure (§14.5). */
  sendReply(text: string, limit: number): boolean {
    if (this.congested(limit)) {
      this.dropped++;
      return false;
    }
    return this.write(text);
  }

  /** Ends the connection the way a fault asks: TCP FIN after what was written, a bare destroy, or a status-less close frame. */
  drop(mode: DropMode): void {
    this.dropping = true;
    if (mode === 'close') this.ws.close();
    else if (mode === 'terminate') this.ws.terminate();
    else {
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 1000).unref();
    }
  }

  info(): DeviceInfo {
    const v2 = this.v2;
    return {
      connection_id: this.id,
      user_id: this.user?.id ?? '',
      device_id: this.deviceId,
      phase: this.phase === 'authenticating' ? 'handshake' : this.phase,
      capabilities: { ...(this.capabilities as Record<string, boolean>) },
      ack_mode: this.ackMode,
      ...(v2 ? { ack_epoch: v2.epoch, last_dseq: v2.next - 1, acked_dseq: v2.acked, unacked: this.unacked } : {}),
      sent_seq: this.sentSeq,
      presence_subscriptions: [...this.presence],
      ...(this.silent ? { half_open: { withheld_frames: this.withheld } } : {}),
      ...(this.clientVersion !== undefined ? { client_version: this.clientVersion } : {}),
      ...(this.protocolVersion !== undefined ? { protocol_version: this.protocolVersion } : {}),
      connected_at: this.connectedAt,
    };
  }
}

export function deviceKey(userId: string, deviceId: string): string {
  return `${userId}\u0000${deviceId}`;
}
