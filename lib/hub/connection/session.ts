/**
 * One WebSocket connection to the hub, from the upgrade to the close (guide §3, §11.7 read layer):
 * challenge → `connect` (token, echoed nonce, device id, capabilities) → `hello-ok` / `hello-fail`, then frames.
 *
 * The v2 density check lives here, at the socket read layer: every frame carrying a `dseq` must be exactly the
 * previous one plus one, counted from zero on this connection (a new Session per `hello-ok` is the baseline reset).
 * A violation closes the connection; replay refills the gap. Nothing here touches the store.
 *
 * Everything the hub says enters here (frames, the close reason, socket errors), so this is where the token this
 * connection presented is cut out of it (lib/redact.ts): a hub that echoes it ("invalid token: Bearer …") in a
 * `hello-fail`, a `message.error` or a close reason must not get it into a status, an event, an error or a log.
 */
import type { Duplex } from 'node:stream';
import { backgroundClock } from '../../clock';
import WebSocket from 'ws';
import { redactSecrets } from '../../redact';
import type { Capabilities } from '../capabilities';
import type { Clock, TimerHandle } from '../../clock';
import { EVENT, PROTOCOL_REVISION, uplink, type Uplink } from '../envelope';
import { id, isObject, str } from '../json';
import { parseFrame, type ParsedFrame } from '../parse-frame';
import type { HubTlsOptions } from '../options';
import type { ClientCloseReason, HelloInfo, LiveSession, SessionEnd } from '../session-info';

export interface SessionCallbacks {
  onHelloOk(session: Session, hello: HelloInfo): void;
  /** Every frame after `hello-ok` that passed the density check, parsed or not. */
  onFrame(session: Session, parsed: ParsedFrame): void;
  onDseqGap(session: Session, expected: number, got: number): void;
  onEnd(session: Session, end: SessionEnd): void;
}

export interface SessionOptions {
  url: string;
  token: string;
  deviceId: string;
  capabilities: Capabilities;
  clientVersion: string;
  clock: Clock;
  handshakeTimeoutMs: number;
  /** Largest inbound frame the socket accepts. */
  maxPayload: number;
  connectTraceId: string;
  /** Distinguishes the connections of one client in logs and in the receive path. */
  id: number;
  tls?: HubTlsOptions;
}

type Phase = 'opening' | 'challenge' | 'hello' | 'live' | 'closing' | 'closed';

export class Session implements LiveSession {
  readonly id: number;
  private readonly ws: WebSocket;
  private phase: Phase = 'opening';
  private handshakeTimer: TimerHandle | undefined;
  private opened = false;
  private helloOk = false;
  private helloFailReason: string | undefined;
  private clientReason: ClientCloseReason | undefined;
  private lastError: string | undefined;
  private v2Epoch: string | undefined;
  private lastReadDseq = 0;
  /** The token as it reads inside a JSON string, and its UTF-8 bytes (a frame is searched before it is decoded). */
  private readonly tokenInJson: string;
  private readonly tokenBytes: Buffer;
  /** The upgraded socket (from ws's `upgrade` event), corked around a batch of sends. */
  private socket: Duplex | undefined;
  /** Clock time of the last frame of any kind (the dead-socket probe reads it). */
  lastFrameAt: number;

  constructor(
    private readonly options: SessionOptions,
    private readonly callbacks: SessionCallbacks,
  ) {
    this.id = options.id;
    this.tokenInJson = JSON.stringify(options.token).slice(1, -1);
    this.tokenBytes = Buffer.from(this.tokenInJson, 'utf8');
    this.lastFrameAt = options.clock.now();
    this.handshakeTimer = options.clock.setTimeout(() => this.close('handshake-timeout', true), options.handshakeTimeoutMs);
    this.ws = new WebSocket(options.url, { perMessageDeflate: false, maxPayload: options.maxPayload, handshakeTimeout: options.handshakeTimeoutMs, ...options.tls });
    this.ws.on('upgrade', (res) => {
      this.socket = res.socket;
    });
    this.ws.on('open', () => {
      this.opened = true;
      if (this.phase === 'opening') this.phase = 'challenge';
    });
    this.ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    this.ws.on('error', (err: Error) => {
      this.lastError = this.redact(err.message);
    });
    this.ws.on('close', (code: number, reason: Buffer) => this.onClose(code, this.redact(reason.toString('utf8'))));
  }

  get isLive(): boolean {
    return this.phase === 'live';
  }

  get epoch(): string | undefined {
    return this.v2Epoch;
  }

  get readDseq(): number {
    return this.lastReadDseq;
  }

  /** Sends a frame on a live (or handshaking, for `connect`) socket; false when it cannot. */
  send(frame: Uplink): boolean {
    return this.sendText(JSON.stringify(frame));
  }

  /** `send` of a frame already serialized (the outbox keeps each send's JSON). */
  sendText(json: string): boolean {
    if (this.ws.readyState !== WebSocket.OPEN || this.phase === 'closing' || this.phase === 'closed') return false;
    this.ws.send(json);
    return true;
  }

  /**
   * Runs `fn`, whose sends then leave in one write of the socket (a corked socket gathers them): a batch of frames
   * costs one system call instead of one per frame. Nothing waits: the socket is uncorked before this returns.
   */
  batch(fn: () => void): void {
    const socket = this.socket;
    socket?.cork();
    try {
      fn();
    } finally {
      socket?.uncork();
    }
  }

  /** Bytes queued in the socket and not yet written (for callers that pace themselves). */
  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  /**
   * Stops reading the socket (TCP's window then holds the hub back) until `resumeReading`; frames already read
   * from the socket are still delivered. Backpressure of the receive path (receive-pipeline.ts).
   */
  pauseReading(): void {
    this.ws.pause();
  }

  resumeReading(): void {
    this.ws.resume();
  }

  /** Ends the connection from this side. `hard` kills the socket without a close handshake (dead peer). */
  close(reason: ClientCloseReason, hard = false): void {
    if (this.phase === 'closed') return;
    this.clientReason ??= reason;
    this.phase = 'closing';
    this.options.clock.clearTimeout(this.handshakeTimer);
    if (hard || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
    else this.ws.close(1000, reason);
    // A close handshake the peer never answers must not keep the session alive. This is socket hygiene in real
    // time, not protocol time, so it goes through the background clock, not the injected one.
    if (!hard) {
      backgroundClock.setTimeout(() => {
        if (this.phase !== 'closed') this.ws.terminate();
      }, 2000);
    }
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.phase === 'closing' || this.phase === 'closed') return;
    this.lastFrameAt = this.options.clock.now();
    const parsed = isBinary ? { ok: false as const, reason: 'binary frame', dseq: undefined, raw: '' } : parseFrame(this.redactFrame(data));
    if (this.phase !== 'live') {
      this.onHandshakeFrame(parsed);
      return;
    }
    const dseq = parsed.ok ? parsed.frame.dseq : parsed.dseq;
    if (this.v2Epoch !== undefined && dseq !== undefined) {
      if (dseq !== this.lastReadDseq + 1) {
        this.callbacks.onDseqGap(this, this.lastReadDseq + 1, dseq);
        this.close('dseq-gap');
        return;
      }
      this.lastReadDseq = dseq;
    }
    this.callbacks.onFrame(this, parsed);
  }

  /** Server text without this connection's token. */
  private redact(text: string): string {
    return redactSecrets(text, [this.options.token]);
  }

  /** A frame as received, or as text with the token cut out when its bytes hold it (a byte search: no decode per frame). */
  private redactFrame(data: WebSocket.RawData): WebSocket.RawData | string {
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (this.tokenBytes.length === 0 || !bytes.includes(this.tokenBytes)) return bytes;
    return redactSecrets(bytes.toString('utf8'), [this.tokenInJson]);
  }

  private onHandshakeFrame(parsed: ParsedFrame): void {
    if (!parsed.ok) return;
    const frame = parsed.frame;
    if (frame.event === EVENT.challenge && (this.phase === 'challenge' || this.phase === 'opening')) {
      const nonce = str(frame.payload.nonce) ?? '';
      const o = this.options;
      this.phase = 'hello';
      this.send(
        uplink(EVENT.connect, o.connectTraceId, o.clock.now(), {
          token: o.token,
          nonce,
          device_id: o.deviceId,
          client_version: o.clientVersion,
          protocol_version: PROTOCOL_REVISION,
          capabilities: { ...o.capabilities },
        }),
      );
      return;
    }
    if (frame.event === EVENT.helloOk && this.phase === 'hello') {
      this.options.clock.clearTimeout(this.handshakeTimer);
      this.phase = 'live';
      this.helloOk = true;
      const p = frame.payload;
      const grantsV2 = p.ack_mode === 'dseq' && id(p.ack_epoch) !== undefined && this.options.capabilities.reliable_delivery_v2;
      this.v2Epoch = grantsV2 ? (p.ack_epoch as string) : undefined;
      this.lastReadDseq = 0;
      this.callbacks.onHelloOk(this, {
        payload: p,
        deviceId: id(p.device_id),
        ackEpoch: this.v2Epoch,
        deliveryMode: str(p.delivery_mode),
      });
      return;
    }
    if (frame.event === EVENT.helloFail) {
      this.helloFailReason = isObject(frame.payload) ? (str(frame.payload.reason) ?? '') : '';
      // The hub drops the socket without a close frame (§3.5); do not wait for it.
      this.close('hello-fail', true);
    }
  }

  private onClose(code: number, reason: string): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.options.clock.clearTimeout(this.handshakeTimer);
    this.callbacks.onEnd(this, {
      code,
      reason,
      helloOk: this.helloOk,
      helloFailReason: this.helloFailReason,
      clientReason: this.clientReason,
      neverOpened: !this.opened,
      error: this.lastError,
    });
  }
}
