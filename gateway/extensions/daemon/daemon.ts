/**
 * The gateway-daemon v1 extension: a plain-TCP listener where devices on the LAN attach under their `off1` address,
 * submit frames and hear a verdict for each, receive the frames routed to them, and ask and watch presence.
 *
 * Attached devices are peers of one more radio (daemon-radio.ts), so everything the gateway does for neighbours it
 * does for them. A submission is answered once the router has written it (`MessageSent`), refused up front when the
 * recipient is not reachable from here (`recipient_unreachable`), or answered as a plain failure. Verdicts carry the
 * client's id and go out as routing resolves, not in arrival order. None of it can stop the radios or MQTT: a session
 * only ever costs its own budget, and closing it touches nothing else.
 */
import net from 'node:net';
import { decodeFrameWithFormat } from '../../../lib/mesh/frame';
import { isAddress } from '../../../lib/mesh/address';
import type { TimerHandle } from '../../../lib/clock';
import type { MeshMessage } from '../../../lib/mesh/message';
import { Extension, type ExtensionContext } from '../../extension';
import type { Counter } from '../../metrics';
import { RadioError } from '../../radios/radio';
import type { DaemonConfig } from './config-schema';
import { DaemonRadio, DAEMON_RADIO_ID } from './daemon-radio';
import { DaemonError } from './errors';
import { parseListen } from './listen';
import { Reachability } from './reachability';
import { Session, type SessionHost, type SubmitRequest } from './session';
import { MAX_LINE_BYTES } from './wire';

interface PendingVerdict {
  session: Session;
  messageId: string;
  recipient: string;
  timer: TimerHandle;
}

/** Ids of frames the router already wrote, remembered so that a client's resubmission is answered `MessageSent`. */
const SENT_MEMORY = 4096;
/** The largest frame whose `MessageReceived` line stays within 1 MiB (base64 is 4/3, plus the JSON around it). */
const MAX_DELIVERABLE_FRAME_BYTES = Math.floor((MAX_LINE_BYTES - 1024) / 4) * 3;

export class GatewayDaemon extends Extension implements SessionHost {
  readonly name = 'daemon';
  private readonly config: DaemonConfig;
  private server: net.Server | undefined;
  private radio: DaemonRadio | undefined;
  private detachRadio: (() => void) | undefined;
  private reach: Reachability | undefined;
  private readonly sessions = new Map<string, Session>();
  private readonly byAddress = new Map<string, Session>();
  private readonly watchers = new Map<string, Set<Session>>();
  private readonly pending = new Map<string, PendingVerdict[]>();
  private readonly sentIds = new Map<string, true>();
  private sweepTimer: TimerHandle | undefined;
  private sessionCount = 0;
  private verdicts: Counter | undefined;
  private boundPort: number | undefined;

  constructor(ctx: ExtensionContext, config: DaemonConfig) {
    super(ctx);
    this.config = config;
  }

  /** `host:port` actually listened on (the port is the real one when 0 was asked for). */
  get address(): { host: string; port: number } | undefined {
    return this.boundPort === undefined ? undefined : { host: parseListen(this.config.listen).host, port: this.boundPort };
  }

  get sessionCountNow(): number {
    return this.sessions.size;
  }

  override async start(): Promise<void> {
    const { host, port } = parseListen(this.config.listen);
    const { clock, bus, mesh } = this.ctx;
    const m = this.ctx.metrics;
    m.gauge('clawling_gateway_daemon_sessions', 'gateway-daemon connections held (attached or not).', () => this.sessions.size);
    m.gauge('clawling_gateway_daemon_attached', 'Devices attached to the gateway-daemon.', () => this.byAddress.size);
    this.verdicts = m.counter('clawling_gateway_daemon_verdicts_total', 'Verdicts sent to devices, by outcome (sent, or the reason token).');
    this.reach = new Reachability(mesh, () => clock.now(), this.ctx.config.nodes.heard_window_s * 1000, this.config.presence_ttl_s * 1000);
    this.radio = new DaemonRadio(this.ctx.logger, clock, (sessionId, frame) => this.toDevice(sessionId, frame), MAX_DELIVERABLE_FRAME_BYTES);
    // A phone is no relay: it takes the frames addressed to it, and its battery and data plan are not the mesh's.
    this.detachRadio = mesh.addRadio(this.radio, { recipientOnly: true });
    await this.radio.open();

    bus.on('meshMessage', this, (e) => {
      this.reach?.noteHeard(e.message.sender, e.rx.receivedAt);
      this.presenceChanged(e.message.sender);
    });
    bus.on('meshAck', this, (e) => {
      this.reach?.noteHeard(e.from, e.rx.receivedAt);
      this.presenceChanged(e.from);
    });
    bus.on('peerChange', this, (e) => {
      if (e.peer.address !== undefined) this.presenceChanged(e.peer.address);
    });
    bus.on('meshSent', this, (e) => this.onWritten(e.message.id.toString()));
    bus.on('frameRejected', this, (e) => {
      if (e.rx.radioId === DAEMON_RADIO_ID && e.messageId !== undefined) this.settle(e.messageId, `not_forwarded: ${e.code}`, e.rx.peerId);
    });
    this.armSweep();

    const server = net.createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(new DaemonError('LISTEN_FAILED', `daemon cannot listen on ${this.config.listen}: ${err.message}`, { listen: this.config.listen }, { cause: err })));
      server.listen({ host, port }, () => resolve());
    });
    server.on('error', (err) => this.ctx.logger.error({ err: err.message }, 'daemon listener error'));
    this.boundPort = (server.address() as net.AddressInfo).port;
    this.ctx.logger.info({ host, port: this.boundPort }, 'gateway-daemon v1 listening');
  }

  override async stop(): Promise<void> {
    this.ctx.clock.clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    const server = this.server;
    this.server = undefined;
    for (const s of [...this.sessions.values()]) {
      s.send({ type: 'StatusUpdate', status: 'disconnected' });
      s.close('gateway stopping');
    }
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    this.detachRadio?.();
    await this.radio?.close();
    await super.stop();
  }

  // --- SessionHost -------------------------------------------------------------------------------------------

  bind(session: Session, address: string): void {
    const previous = this.byAddress.get(address);
    // The documented rule: the newest proof wins. A phone that lost Wi-Fi reconnects before its old socket times
    // out, and holding the address for the dead one would lock the device out for minutes.
    if (previous && previous !== session) previous.replace();
    this.byAddress.set(address, session);
    this.radio?.attach(session.id, address);
    this.ctx.logger.info({ session: session.id, address }, 'device attached');
  }

  submit(session: Session, request: SubmitRequest): void {
    const { messageId, recipient } = request;
    const answer = (reason: string | undefined): void => {
      if (reason === undefined) session.send({ type: 'MessageSent', message_id: messageId, recipient, pushed: false, stored: false });
      else session.send({ type: 'DeliveryError', message_id: messageId, recipient, reason, stored: false });
    };
    if (!isAddress(recipient)) return answer('malformed_request: recipient is not an off1 address');
    let message: MeshMessage;
    try {
      ({ message } = decodeFrameWithFormat(request.frame, { maxFrameBytes: this.ctx.config.mesh.max_frame_bytes }));
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'DECODE_FAILED';
      return answer(code === 'FRAME_TOO_LARGE' ? 'frame_too_large' : `malformed_request: ${code}`);
    }
    if (message.recipient !== recipient) return answer('malformed_request: the frame is addressed to another recipient');
    const via = this.reach?.reachable(recipient);
    if (via === undefined) return answer('recipient_unreachable: not a neighbour, not attached and not heard recently');
    const id = message.id.toString();
    if (this.sentIds.has(id)) return answer(undefined);
    const entry: PendingVerdict = {
      session,
      messageId,
      recipient,
      timer: this.ctx.clock.setTimeout(() => this.expire(id, entry), this.config.verdict_timeout_ms),
    };
    const list = this.pending.get(id) ?? [];
    list.push(entry);
    this.pending.set(id, list);
    try {
      this.radio?.submit(session.id, request.frame);
    } catch (err) {
      this.settle(id, `not_forwarded: ${(err as RadioError).code ?? 'RADIO'}`, session.id);
      return;
    }
    // Addressed to the gateway itself: the router handed it to the extensions (no write follows), so it is taken.
    if (via === 'gateway') this.settle(id, undefined);
  }

  presence(peer: string): { online: boolean; last_seen_ms?: number } {
    return this.reach?.presence(peer) ?? { online: false };
  }

  watch(session: Session, peer: string): void {
    const set = this.watchers.get(peer) ?? new Set<Session>();
    set.add(session);
    this.watchers.set(peer, set);
  }

  closed(session: Session, reason: string): void {
    if (!this.sessions.delete(session.id)) return;
    for (const peer of session.watched.keys()) {
      const set = this.watchers.get(peer);
      set?.delete(session);
      if (set?.size === 0) this.watchers.delete(peer);
    }
    for (const [id, list] of this.pending) {
      const kept = list.filter((p) => {
        if (p.session !== session) return true;
        this.ctx.clock.clearTimeout(p.timer);
        return false;
      });
      if (kept.length) this.pending.set(id, kept);
      else this.pending.delete(id);
    }
    const address = session.address;
    if (address !== undefined && this.byAddress.get(address) === session) {
      this.byAddress.delete(address);
      this.radio?.detach(session.id, reason);
      this.ctx.logger.info({ session: session.id, address, reason }, 'device detached');
    } else this.ctx.logger.debug({ session: session.id, reason }, 'daemon session closed');
  }

  verdict(outcome: string): void {
    this.verdicts?.inc({ outcome });
  }

  log(details: Record<string, unknown>, msg: string): void {
    this.ctx.logger.debug(details, msg);
  }

  // --- internals ---------------------------------------------------------------------------------------------

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    if (this.sessions.size >= this.config.max_sessions) {
      socket.end(`${JSON.stringify({ type: 'StatusUpdate', status: 'disconnected' })}\n`);
      this.ctx.logger.warn({ max_sessions: this.config.max_sessions }, 'daemon: session cap reached, a connection was turned away');
      return;
    }
    this.sessionCount += 1;
    const session = new Session(`s${this.sessionCount}`, socket, this, this.config, this.ctx.clock);
    this.sessions.set(session.id, session);
  }

  /** The router writes a frame to an attached device. */
  private toDevice(sessionId: string, frame: Uint8Array): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session || session.isClosed) return Promise.reject(new RadioError('PEER_LOST', `session ${sessionId} is gone`, { peerId: sessionId }));
    let sender: string;
    let messageId: string;
    try {
      const { message } = decodeFrameWithFormat(frame);
      sender = message.sender;
      messageId = message.id.toString();
    } catch (err) {
      return Promise.reject(new RadioError('WRITE_FAILED', 'a frame for a device did not decode', { peerId: sessionId }, { cause: err }));
    }
    if (!session.deliver(frame, sender, messageId)) {
      return Promise.reject(new RadioError('PEER_LOST', `session ${sessionId} could not take the frame`, { peerId: sessionId }));
    }
    return Promise.resolve();
  }

  private onWritten(id: string): void {
    this.sentIds.delete(id);
    this.sentIds.set(id, true);
    if (this.sentIds.size > SENT_MEMORY) this.sentIds.delete(this.sentIds.keys().next().value as string);
    this.settle(id, undefined);
  }

  /** Answers every waiting submission of frame `id` (of one session when `onlySession` is given). */
  private settle(id: string, reason: string | undefined, onlySession?: string): void {
    const list = this.pending.get(id);
    if (!list) return;
    const kept: PendingVerdict[] = [];
    for (const p of list) {
      if (onlySession !== undefined && p.session.id !== onlySession) {
        kept.push(p);
        continue;
      }
      this.ctx.clock.clearTimeout(p.timer);
      if (reason === undefined) p.session.send({ type: 'MessageSent', message_id: p.messageId, recipient: p.recipient, pushed: false, stored: false });
      else p.session.send({ type: 'DeliveryError', message_id: p.messageId, recipient: p.recipient, reason, stored: false });
    }
    if (kept.length) this.pending.set(id, kept);
    else this.pending.delete(id);
  }

  private expire(id: string, entry: PendingVerdict): void {
    const list = this.pending.get(id);
    if (!list) return;
    const i = list.indexOf(entry);
    if (i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) this.pending.delete(id);
    // The router took the frame and wrote it nowhere (no neighbour, TTL spent, a duplicate in flight).
    entry.session.send({ type: 'DeliveryError', message_id: entry.messageId, recipient: entry.recipient, reason: 'recipient_unreachable: no neighbour took the frame', stored: false });
  }

  /** Sends `PresenceStatus` to every session watching `peer` whose last answer no longer holds. */
  private presenceChanged(peer: string): void {
    const set = this.watchers.get(peer);
    if (!set || !this.reach) return;
    const p = this.reach.presence(peer);
    for (const s of set) {
      if (s.watched.get(peer) === p.online) continue;
      s.watched.set(peer, p.online);
      s.send({ type: 'PresenceStatus', peer, ...p });
    }
  }

  /** Presence decays without an event to say so: a periodic look at every watched peer catches it. */
  private armSweep(): void {
    const every = Math.max(250, Math.min(5000, (this.config.presence_ttl_s * 1000) / 4));
    this.sweepTimer = this.ctx.clock.setTimeout(() => {
      for (const peer of this.watchers.keys()) this.presenceChanged(peer);
      this.armSweep();
    }, every);
  }
}
