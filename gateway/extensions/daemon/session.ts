/**
 * One connection of the gateway-daemon v1 wire, from first byte to close:
 *
 *   Identify → Challenge → DeclareAddress → AddressDeclared | AddressError → Capabilities → StatusUpdate(connected)
 *
 * then SendMessage ↔ MessageSent | DeliveryError, CheckPresence ↔ PresenceStatus, and MessageReceived for frames
 * routed to the bound address. What the session cannot decide alone (binding an address, routing a frame, presence)
 * it asks its host. Bounds are per connection: a line past 1 MiB or output piling up past `max_write_buffer_bytes`
 * closes this connection only.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { fromBase64Canonical, toBase64 } from '../../../lib/bytes';
import type { Clock, TimerHandle } from '../../../lib/clock';
import { GATEWAY_CHALLENGE_BYTES, verifyGatewayAddressProof } from '../../../lib/mesh/gateway-address-proof';
import type { DaemonConfig } from './config-schema';
import { LineSplitter } from './line-splitter';
import type { Presence } from './reachability';
import { TokenBucket } from '../../../lib/token-bucket';
import { CAPABILITY_TOKENS, CLIENT_MESSAGE_ID, MAX_LINE_BYTES, MAX_PEERS_PER_CHECK, PROTOCOL_VERSION, str, type Outbound } from './wire';

export interface SubmitRequest {
  messageId: string;
  recipient: string;
  frame: Uint8Array;
}

export interface SessionHost {
  /** The proof passed: bind the address (and settle any other session holding it). */
  bind(session: Session, address: string): void;
  submit(session: Session, request: SubmitRequest): void;
  presence(peer: string): Presence;
  watch(session: Session, peer: string): void;
  closed(session: Session, reason: string): void;
  /** Counts one verdict by its outcome: `sent`, or the reason's token. */
  verdict(outcome: string): void;
  log(details: Record<string, unknown>, msg: string): void;
}

export type SessionState = 'new' | 'bound' | 'verdict-only';

/** How long a closing session's last lines may take to leave before the socket is destroyed. */
const CLOSE_LINGER_MS = 2000;

export class Session {
  private stateValue: SessionState = 'new';
  private addressValue: string | undefined;
  /** The challenge minted for this connection and not yet spent; spent by the first declaration that uses it. */
  private challenge: Uint8Array | undefined;
  private graceTimer: TimerHandle | undefined;
  private readonly splitter: LineSplitter;
  private readonly submissions: TokenBucket;
  private readonly bytes: TokenBucket;
  private closedReason: string | undefined;
  readonly watched = new Map<string, boolean>();

  constructor(
    readonly id: string,
    private readonly socket: Socket,
    private readonly host: SessionHost,
    private readonly config: DaemonConfig,
    private readonly clock: Clock,
  ) {
    const now = (): number => clock.now();
    this.submissions = new TokenBucket(config.submit_rate_per_s, config.submit_burst, now);
    this.bytes = new TokenBucket(config.bytes_per_s, config.bytes_burst, now);
    this.splitter = new LineSplitter(MAX_LINE_BYTES, (line) => this.onLine(line), () => this.close('line over 1 MiB'));
    socket.on('data', (chunk: Buffer) => this.splitter.push(chunk));
    socket.on('error', (err) => this.host.log({ session: this.id, err: err.message }, 'daemon connection error'));
    socket.on('close', () => this.close('connection closed'));
    this.graceTimer = clock.setTimeout(() => this.onGraceOver(), config.attach_grace_ms);
  }

  get state(): SessionState {
    return this.stateValue;
  }

  get address(): string | undefined {
    return this.addressValue;
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  /**
   * Writes one line, or closes the connection when the peer has left more unread than the bound: a reader that
   * does not keep up must not make the gateway hold its backlog. Returns whether the line was taken.
   */
  send(message: Outbound): boolean {
    if (this.isClosed) return false;
    const line = `${JSON.stringify(message)}\n`;
    const bytes = Buffer.byteLength(line);
    if (bytes > MAX_LINE_BYTES) return false;
    if (this.socket.writableLength + bytes > this.config.max_write_buffer_bytes) {
      this.close('slow reader: unread output past max_write_buffer_bytes');
      return false;
    }
    this.socket.write(line);
    if (message.type === 'MessageSent') this.host.verdict('sent');
    else if (message.type === 'DeliveryError') this.host.verdict(/^[a-z_]+/.exec(message.reason)?.[0] ?? 'other');
    return true;
  }

  /** A frame routed to the bound address. */
  deliver(frame: Uint8Array, sender: string, messageId: string | undefined): boolean {
    return this.send({ type: 'MessageReceived', sender, content: toBase64(frame), encoding: 'base64', ...(messageId !== undefined ? { message_id: messageId } : {}) });
  }

  /** Another session proved the same address: this one is told it is disconnected and closed. */
  replace(): void {
    this.send({ type: 'StatusUpdate', status: 'disconnected' });
    this.close('replaced by a newer session for the same address');
  }

  close(reason: string): void {
    if (this.isClosed) return;
    this.closedReason = reason;
    this.clock.clearTimeout(this.graceTimer);
    // What the kernel already took still goes out before the FIN; what is still queued here gets a moment to follow
    // (a last StatusUpdate), except for the two abusers, whose backlog is the reason they are closed.
    if (this.socket.writableLength > 0 && !reason.startsWith('slow') && !reason.startsWith('line')) {
      this.socket.end();
      this.socket.setTimeout(CLOSE_LINGER_MS, () => this.socket.destroy());
    } else this.socket.destroy();
    this.host.closed(this, reason);
  }

  private onGraceOver(): void {
    this.graceTimer = undefined;
    if (this.stateValue !== 'new' || this.isClosed) return;
    // The contract's verdict-only session: it may submit and hear verdicts, and nothing is routed to it.
    this.stateValue = 'verdict-only';
    this.send({ type: 'Capabilities', tokens: CAPABILITY_TOKENS });
    this.send({ type: 'StatusUpdate', status: 'connected' });
  }

  private onLine(line: string): void {
    if (this.isClosed || line.length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.host.log({ session: this.id }, 'daemon: a line that is not JSON, ignored');
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return;
    const m = parsed as Record<string, unknown>;
    switch (m.type) {
      case 'Identify':
        return this.onIdentify();
      case 'DeclareAddress':
        return this.onDeclare(m);
      case 'SendMessage':
        return this.onSendMessage(m);
      case 'CheckPresence':
        return this.onCheckPresence(m);
      default:
        // Unknown types are how a later version adds messages: ignored, never a reason to close.
        return;
    }
  }

  private onIdentify(): void {
    // A fresh challenge each time: the one before is no longer accepted.
    this.challenge = new Uint8Array(randomBytes(GATEWAY_CHALLENGE_BYTES));
    this.send({ type: 'Challenge', challenge: toBase64(this.challenge), protocol_version: PROTOCOL_VERSION });
  }

  private onDeclare(m: Record<string, unknown>): void {
    const challenge = this.challenge;
    // Spent whatever the outcome: a challenge is never honoured twice, and a failed try needs a new Identify.
    this.challenge = undefined;
    const refuse = (reason: string): void => {
      this.send({ type: 'AddressError', reason });
    };
    if (this.stateValue === 'bound') return refuse('this session is already bound');
    if (!challenge) return refuse('no challenge outstanding on this connection (send Identify first)');
    const address = str(m.address);
    const publicKey = fromBase64Canonical(str(m.public_key) ?? '');
    const signature = fromBase64Canonical(str(m.signature) ?? '');
    if (address === undefined || !publicKey || !signature) return refuse('address, public_key and signature (base64) are required');
    const check = verifyGatewayAddressProof({ address, publicKey, signature }, challenge);
    if (!check.ok) return refuse(check.reason);
    this.clock.clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.stateValue = 'bound';
    this.addressValue = address;
    this.host.bind(this, address);
    this.send({ type: 'AddressDeclared', address });
    this.send({ type: 'Capabilities', tokens: CAPABILITY_TOKENS });
    this.send({ type: 'StatusUpdate', status: 'connected' });
  }

  private onSendMessage(m: Record<string, unknown>): void {
    const given = str(m.message_id);
    const messageId = given !== undefined && CLIENT_MESSAGE_ID.test(given) ? given : mintId();
    const recipient = str(m.recipient) ?? '';
    const fail = (reason: string): void => {
      this.send({ type: 'DeliveryError', message_id: messageId, recipient, reason, stored: false });
    };
    if (this.stateValue === 'new') return fail('attach_required: declare an address, or wait for the verdict-only grace to end');
    if (!this.submissions.take(1)) return fail('budget_exceeded: submissions per second');
    const content = str(m.content);
    if (content === undefined) return fail('malformed_request: content is required');
    const encoding = m.encoding === undefined ? 'utf8' : m.encoding;
    let frame: Uint8Array | undefined;
    if (encoding === 'base64') frame = fromBase64Canonical(content);
    else if (encoding === 'utf8' || encoding === 'utf-8') frame = new Uint8Array(Buffer.from(content, 'utf8'));
    if (!frame || frame.length === 0) return fail('malformed_request: content is not a frame in the named encoding');
    if (!this.bytes.take(frame.length)) return fail('budget_exceeded: bytes per second');
    this.host.submit(this, { messageId, recipient, frame });
  }

  private onCheckPresence(m: Record<string, unknown>): void {
    if (!Array.isArray(m.peers)) return;
    for (const peer of m.peers.slice(0, MAX_PEERS_PER_CHECK)) {
      if (typeof peer !== 'string' || peer.length > 128) continue;
      const p = this.host.presence(peer);
      if (this.watched.has(peer) || this.watched.size < this.config.max_watched_peers) {
        this.watched.set(peer, p.online);
        this.host.watch(this, peer);
      }
      this.send({ type: 'PresenceStatus', peer, ...p });
    }
  }
}

function mintId(): string {
  return `gw-${randomBytes(12).toString('hex')}`;
}
