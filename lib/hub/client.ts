/**
 * `HubClient`: one logical connection to a ClawlingChat Message Hub, shared by any number of users (the Node-RED
 * hub-config node, the gateway's hub bridge, the CLI). A facade over the parts that do the work, each in its folder:
 * connection/ (the loop: token, connect, hello, backoff, reconnect; the session's liveness: replay idle, probes),
 * send/ (the send path over send/outbox.ts and lib/store's DurableOutbox, the composers, the stream writer) and
 * receive/ (the pipeline, its handlers and the acks). The parts share core.ts and tell each other what happened
 * through its one internal event map; `listen()` below is where those events move the client's state: the `state`,
 * what one session carries (the live connection, replay, reading paused or not), and the local state of signals
 * (typing, presence, permission cards).
 *
 * State machine (events.ts `HubState`):
 *
 *   idle ─start→ connecting ─hello-ok→ replaying ─replay.done→ connected
 *                   │  ▲                   │                      │
 *                   │  └──── backoff ◄─────┴──────── close ───────┘
 *                   └─"authentication failed"→ auth_failed ─setToken / new token→ connecting
 *   any ─stop→ stopped
 *
 * Everything time-related reads the injected clock; the receive path's scheduling is `setImmediate` on purpose
 * (it is the frame path of guide §11.7, which must not depend on timers).
 */
import { ChatGate } from './send/chat-gate';
import type { Clock, TimerHandle } from '../clock';
import { ConnectionLoop } from './connection/connection-loop';
import { HubCore, type StateChange } from './core';
import { composeMessage, composeReaction, type ReactInput, type SendInput } from './send/compose';
import { EVENT, uplink, type Peer } from './envelope';
import { HubError } from './errors';
import type {
  DeliveryMode,
  HistoryTransitEvent,
  HubClientEvents,
  HubState,
  HubStatus,
  PermissionCard,
  SendHandle,
} from './events';
import type { ReceiveServices } from './receive/handlers';
import { AckScheduler } from './receive/ack-scheduler';
import { checkChatId, checkMessageId, createIdMinter, mintDeviceId, type IdMinter } from './ids';
import { isObject, type JsonObject } from './json';
import { resolveOptions, type HubClientOptions, type ResolvedOptions } from './options';
import type { Outbox, OutboxEntry } from './send/outbox';
import { checkFrameSize, checkGate, SendPath } from './send/send-path';
import { PermissionCards } from './receive/permission-cards';
import { PresenceSubscriptions } from './presence';
import { READ_PREFIX, readCursorKey, readSentKey } from './read-cursor';
import { ReceivePipeline } from './receive/receive-pipeline';
import type { HelloInfo, LiveSession } from './session-info';
import { StreamAssembler } from './receive/stream-assembler';
import { StreamWriter, type FinalizeInput } from './send/stream-writer';
import { TraceRegistry } from './trace-registry';
import { TypingProducer, TypingReceiver } from './typing';
import { InboundPersisters, type InboundPersister } from './receive/inbound-persister';
import { Liveness } from './connection/liveness';
import { MemoryStore, type Queue, type Store } from '../store';

export const DEVICE_ID_KEY = 'hub.device_id';
export const HISTORY_QUEUE = 'hub.history-transit';

export interface OpenStreamInput {
  chatId: string;
  /** `message_mode` of the stream (e.g. `thinking`); default `normal`. */
  mode?: string;
  messageId?: string;
  to?: Peer;
}

export interface HistoryTransitInput {
  targetDeviceId: string;
  /** `payload.kind` is required: `history_sync_request`, `history_sync_message`, … */
  payload: JsonObject & { kind: string };
  ciphertextFragments?: unknown[];
}

export interface HubClientStats {
  framesReceived: number;
  quarantined: number;
  commitFailures: number;
  dseqGaps: number;
  acksSent: number;
  retransmits: number;
  connections: number;
  outbox: number;
  inFlight: number;
  deliveryMode: DeliveryMode | undefined;
  /** Times the receive backlog reached `receiveMaxFrames` / `receiveMaxChars` and reading paused. */
  receiveSaturations: number;
  /** Most received frames waiting to be handled at once. */
  receivePeakBacklog: number;
}

export class HubClient {
  readonly userId: string;
  readonly store: Store;
  private readonly o: ResolvedOptions;
  private readonly clock: Clock;
  private readonly core: HubCore;
  private readonly ids: IdMinter;
  private readonly device: string;
  private readonly outbox: Outbox;
  private readonly sends: SendPath;
  private readonly ack: AckScheduler;
  private readonly pipeline: ReceivePipeline;
  private readonly gate: ChatGate;
  private readonly typingGate: ChatGate;
  private readonly typingIn: TypingReceiver;
  private readonly typingOut: TypingProducer;
  private readonly presence = new PresenceSubscriptions();
  private readonly permissions: PermissionCards;
  private readonly streams: StreamAssembler;
  private readonly traces = new TraceRegistry();
  private readonly history: Queue;
  private readonly persisters = new InboundPersisters();
  private readonly liveness: Liveness;

  private readonly loop: ConnectionLoop;

  private statusValue: HubStatus;
  private replayFrames = 0;
  private started = false;
  private resetRequest: { sessionId: number; clearLocal: boolean; resolve(): void; reject(e: HubError): void; timer: TimerHandle } | undefined;
  private receiveHolds = 0;
  private dseqGaps = 0;

  constructor(options: HubClientOptions) {
    this.o = resolveOptions(options);
    this.clock = this.o.clock;
    this.userId = this.o.userId;
    this.store = this.o.store ?? new MemoryStore();
    this.ids = createIdMinter(() => this.clock.now());
    this.device = this.o.deviceId ?? this.storedDeviceId();
    this.core = new HubCore(this.o, this.clock, this.store, this.userId, this.device, this.ids, (err, event) => this.listenerThrew(event, err));
    this.gate = new ChatGate(this.clock, this.o.chatGateMs, this.o.gateExemptChatIds);
    this.typingGate = new ChatGate(this.clock, this.o.chatGateMs, this.o.gateExemptChatIds);
    this.loop = new ConnectionLoop(this.core, this.o.token);
    this.sends = new SendPath(this.core, this.gate);
    this.outbox = this.sends.outbox;
    this.ack = new AckScheduler(
      this.clock,
      { debounceMs: this.o.ackDebounceMs, resendMs: this.o.ackResendMs, eagerWindow: this.o.ackEagerWindow },
      (mode, value, epoch) => this.sendAck(mode, value, epoch),
    );
    this.typingIn = new TypingReceiver(this.clock, this.o.typingExpiryMs, (e) => this.core.events.emit('typing', e));
    this.typingOut = new TypingProducer(this.clock, this.o.typingRefreshMs, this.o.typingMaxMs, (chatId, isTyping) => this.sendTyping(chatId, isTyping));
    this.permissions = new PermissionCards(this.clock, (e) => this.core.events.emit('permission', e));
    this.streams = new StreamAssembler(() => this.clock.now(), { maxStreamChars: this.o.streamMaxChars, maxTotalChars: this.o.streamTotalMaxChars });
    this.history = this.store.queue(HISTORY_QUEUE, { capacity: 10_000, overflow: 'reject' });
    this.liveness = new Liveness(this.core, { replayIdleMs: this.o.replayIdleMs, pingSilenceMs: this.o.pingSilenceMs, pongTimeoutMs: this.o.pongTimeoutMs });
    this.pipeline = new ReceivePipeline(this.receiveServices(), { maxFrames: this.o.receiveMaxFrames, maxChars: this.o.receiveMaxChars });
    this.listen();
    if (this.outbox.unreadable > 0) {
      this.warn(new HubError('STORE_FAILED', `${this.outbox.unreadable} unreadable outbox records were dropped`, { count: this.outbox.unreadable }));
    }
    this.statusValue = { state: 'idle', since: this.clock.now(), attempt: 0, deviceId: this.device };
  }

  // ─── public surface ──────────────────────────────────────────────────────────────────────────────────────────

  get deviceId(): string {
    return this.device;
  }

  get state(): HubState {
    return this.statusValue.state;
  }

  /** The current status; in `backoff`, `retryInMs` is computed at the time of the call (for a countdown). */
  status(): HubStatus {
    const s = { ...this.statusValue };
    if (s.state === 'backoff' && s.retryAt !== undefined) s.retryInMs = Math.max(0, s.retryAt - this.clock.now());
    return s;
  }

  on<K extends keyof HubClientEvents & string>(event: K, listener: (value: HubClientEvents[K]) => void): this {
    this.core.events.on(event, listener);
    return this;
  }

  once<K extends keyof HubClientEvents & string>(event: K, listener: (value: HubClientEvents[K]) => void): this {
    this.core.events.once(event, listener);
    return this;
  }

  off<K extends keyof HubClientEvents & string>(event: K, listener: (value: HubClientEvents[K]) => void): this {
    this.core.events.off(event, listener);
    return this;
  }

  /**
   * Makes a consumer's own durable write part of the store transaction that records each received message in the
   * inbox, so that the two commit together: a crash can no longer fall between "seen" and "taken over". The
   * persister is called synchronously for every message about to be reported on `message` (same value), writes
   * only through `client.store`, and defers in-memory work to `tx.afterCommit`; if it throws, the frame is rolled
   * back and quarantined (see inbound-persister.ts). Returns the function that removes it.
   */
  addInboundPersister(persister: InboundPersister): () => void {
    return this.persisters.add(persister);
  }

  /** Opens the connection (and keeps it open until `stop`). Sends made before are kept in the outbox. */
  start(): void {
    if (this.core.stopping || this.statusValue.state === 'stopped') throw new HubError('CLIENT_STOPPED', 'a stopped client cannot be started again; create a new one');
    if (this.started) return;
    this.started = true;
    this.loop.start();
  }

  /**
   * Ends the connection gracefully: ends typing indicators, persists what was received, flushes the ack, closes.
   * Unanswered sends stay in the outbox (their promises reject with CLIENT_STOPPED). The store is not closed: its
   * owner closes it after this resolves.
   */
  async stop(): Promise<void> {
    if (this.statusValue.state === 'stopped') return;
    this.sends.commitStaged();
    this.core.stopping = true;
    this.typingOut.stopAll();
    this.pipeline.drainNow();
    this.ack.flush();
    await this.loop.stop();
    this.pipeline.stop();
    this.liveness.end();
    this.ack.end();
    await this.sends.settleCommits();
    this.typingIn.clear();
    this.permissions.clear();
    this.resetRequest?.reject(new HubError('CLIENT_STOPPED', 'the client stopped before the cursor reset was confirmed'));
    this.sends.rejectWaiters();
    this.loop.release();
    this.core.live = undefined;
    this.setState({ state: 'stopped' });
  }

  /** Replaces the token. A live connection is closed and re-opened with it (§17 "on refresh, reconnect"). */
  setToken(token: HubClientOptions['token'], options: { reconnect?: boolean } = {}): void {
    if (typeof token !== 'function' && (typeof token !== 'string' || token === '')) throw new HubError('BAD_ARGUMENT', 'token must be a non-empty string or a function');
    this.loop.replaceToken(token);
    if (!this.started || this.core.stopping) return;
    this.loop.tokenChanged(options.reconnect !== false);
  }

  /**
   * Sends `message.send` (or `message.reply` with `replyTo`): durable, retried with the same ids until answered.
   * The returned handle is the promise of the answer; its `messageId`, `traceId` and `queued` are there at once.
   */
  send(input: SendInput): SendHandle {
    return this.sends.enqueue(() => composeMessage(input, this.o.chatIdRule, () => this.ids.messageId(), this.ids.traceId()), () => input.tag);
  }

  /** `message.reply`: `send` with a reply target. */
  reply(input: SendInput & { replyTo: NonNullable<SendInput['replyTo']> }): SendHandle {
    return this.send({ ...input, event: 'message.reply' });
  }

  /** `message.reaction` on a message (`removed: true` is the tombstone). Durable like a send; answered by a slot ack. */
  react(input: ReactInput): SendHandle {
    return this.sends.enqueue(() => composeReaction(input, this.o.chatIdRule, this.userId, this.ids.traceId('rxn')), () => input.tag);
  }

  /** Shows (or clears) our typing indicator in a chat; refreshed every 3 s while on, cleared on stop. */
  setTyping(chatId: string, isTyping: boolean): void {
    checkChatId(chatId, this.o.chatIdRule);
    if (isTyping && this.typingGate.closedUntil(chatId) !== undefined) return;
    this.typingOut.set(chatId, isTyping === true);
  }

  /**
   * Subscribes to a user's presence on behalf of `subscriber` (any name; default: the client's own caller). The hub
   * holds one subscription per user while any subscriber holds it; each call re-sends the subscribe, so the hub
   * answers with a fresh snapshot. Re-sent after every `hello-ok`.
   */
  subscribePresence(userId: string, subscriber?: string): void {
    this.presence.add(userId, subscriber);
    this.core.live?.send(uplink(EVENT.presenceSubscribe, this.ids.traceId('pres'), this.clock.now(), { user_id: userId }));
  }

  /** Releases `subscriber`'s hold; the hub is told only when nobody holds the user any more. True when it was told (or will be). */
  unsubscribePresence(userId: string, subscriber?: string): boolean {
    if (!this.presence.remove(userId, subscriber)) return false;
    this.sendPresenceUnsubscribe(userId);
    return true;
  }

  /** Releases every hold of one subscriber (e.g. a node that stops); returns the users the hub was told to drop. */
  unsubscribePresenceAll(subscriber: string): string[] {
    const released = this.presence.removeSubscriber(subscriber);
    for (const userId of released) this.sendPresenceUnsubscribe(userId);
    return released;
  }

  /** The users subscribed to on this connection (all of them, or those `subscriber` holds). */
  presenceSubscriptions(subscriber?: string): string[] {
    return this.presence.list(subscriber);
  }

  /**
   * Moves this device's read watermark of a chat forward (never back) and tells the hub; when offline, it goes out
   * after the next replay. Returns true when the watermark advanced.
   */
  markRead(chatId: string, lastReadEmittedAt: number): boolean {
    checkChatId(chatId, this.o.chatIdRule);
    if (typeof lastReadEmittedAt !== 'number' || !Number.isFinite(lastReadEmittedAt) || lastReadEmittedAt <= 0) {
      throw new HubError('BAD_ARGUMENT', 'lastReadEmittedAt must be a positive number of milliseconds');
    }
    const advanced = this.store.kv.setMax(readCursorKey(chatId), lastReadEmittedAt);
    if (advanced && this.core.live && !this.core.replaying) this.sendRead(chatId, lastReadEmittedAt);
    return advanced;
  }

  /** The local read watermark of a chat. */
  readCursor(chatId: string): number | undefined {
    return this.store.kv.getNumber(readCursorKey(chatId));
  }

  /** Opens a stream (`message.created` now); needs a live connection. */
  openStream(input: OpenStreamInput): StreamWriter {
    if (!isObject(input)) throw new HubError('BAD_ARGUMENT', 'openStream needs an object');
    const chatId = checkChatId(input.chatId, this.o.chatIdRule);
    checkGate(this.gate, chatId);
    const messageId = input.messageId === undefined ? this.ids.messageId() : checkMessageId(input.messageId);
    const mode = input.mode ?? 'normal';
    const writer = new StreamWriter(
      {
        now: () => this.clock.now(),
        traceId: () => this.ids.traceId('str'),
        sendLifecycle: (frame, onRejected) => {
          if (!this.core.live || !this.core.live.send(frame)) throw new HubError('NOT_CONNECTED', 'streaming frames need a live connection');
          this.traces.remember(frame.trace_id, { event: frame.event, chatId, messageId, onRejected });
        },
        finalize: (f: FinalizeInput & { chatId: string; messageId: string; to: Peer | undefined }) =>
          this.send({
            chatId: f.chatId,
            messageId: f.messageId,
            text: f.text,
            fragments: f.fragments,
            mode: f.mode,
            mentions: f.mentions,
            replyTo: f.replyTo,
            to: f.to,
            event: 'message.reply',
            tag: f.tag,
          }),
      },
      chatId,
      messageId,
      mode,
      input.to,
    );
    writer.open();
    return writer;
  }

  /** Sends `history.transit` to a sibling device (§11.4): `sender` and `origin_device_id` are set here, as required. */
  sendHistoryTransit(input: HistoryTransitInput): string {
    if (!isObject(input) || typeof input.targetDeviceId !== 'string' || input.targetDeviceId === '') throw new HubError('BAD_ARGUMENT', 'targetDeviceId is required');
    if (!isObject(input.payload) || typeof input.payload.kind !== 'string') throw new HubError('BAD_ARGUMENT', 'payload.kind is required');
    const traceId = this.ids.traceId('hist');
    const frame = uplink(EVENT.historyTransit, traceId, this.clock.now(), input.payload, {
      target_device_id: input.targetDeviceId,
      sender: { id: this.userId, type: 'direct' },
      origin_device_id: this.device,
      ciphertext_fragments: input.ciphertextFragments,
    });
    checkFrameSize(frame, this.o.maxFrameBytes);
    if (!this.core.live || !this.core.live.send(frame)) throw new HubError('NOT_CONNECTED', 'history.transit needs a live connection');
    this.traces.remember(traceId, { event: EVENT.historyTransit, chatId: undefined, messageId: undefined });
    return traceId;
  }

  /** Received `history.transit` frames not yet released, oldest first (they survive restarts). */
  pendingHistoryTransit(): HistoryTransitEvent[] {
    return this.history.peek().map((item) => {
      const r = JSON.parse(String(item.value)) as Omit<HistoryTransitEvent, 'localId' | 'replay'>;
      return { ...r, localId: item.seq, replay: false };
    });
  }

  releaseHistoryTransit(localId: number): boolean {
    return this.history.remove(localId);
  }

  /**
   * Full re-pull (§11.6): sends `device.cursor.reset`; the hub rewinds this device's cursor and closes the
   * connection, and the client reconnects with the same device id to receive the whole retained inbox again.
   * With `clearLocal` (default true) the local dedup table is emptied at that close, so everything is reported anew.
   */
  resetCursor(options: { clearLocal?: boolean } = {}): Promise<void> {
    const session = this.core.live;
    if (!session) return Promise.reject(new HubError('NOT_CONNECTED', 'device.cursor.reset needs a live connection'));
    if (this.resetRequest) return Promise.reject(new HubError('BAD_ARGUMENT', 'a cursor reset is already pending'));
    return new Promise<void>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.resetRequest = undefined;
        this.core.resetSession = undefined;
        reject(new HubError('RESET_NOT_CONFIRMED', 'the hub did not close the connection after device.cursor.reset; it may have failed server-side'));
      }, this.o.cursorResetTimeoutMs);
      this.resetRequest = { sessionId: session.id, clearLocal: options.clearLocal !== false, resolve, reject, timer };
      this.core.resetSession = session.id;
      session.send(uplink(EVENT.cursorReset, this.ids.traceId('reset'), this.clock.now(), {}));
    });
  }

  /** Unanswered sends in the outbox, oldest first (copies); a send appears once durable (see the `queued` event). */
  pendingSends(): OutboxEntry[] {
    return this.outbox.list();
  }

  /** Chats whose sends are paused after `chat_not_found` / `not_member`, with when each reopens. */
  gatedChats(): Record<string, number> {
    return this.gate.snapshot();
  }

  permissionCards(): PermissionCard[] {
    return this.permissions.list();
  }

  stats(): HubClientStats {
    const c = this.pipeline.counters;
    return {
      framesReceived: c.frames,
      quarantined: c.quarantined,
      commitFailures: c.commitFailures,
      dseqGaps: this.dseqGaps,
      acksSent: this.ack.acksSent,
      retransmits: this.sends.retransmits,
      connections: this.loop.connectionCount,
      outbox: this.outbox.size,
      inFlight: this.outbox.inFlight,
      deliveryMode: this.core.live ? this.ack.deliveryMode : undefined,
      receiveSaturations: c.saturations,
      receivePeakBacklog: c.peakBacklog,
    };
  }

  /**
   * Consumer backpressure: the client stops reading from the hub (frames already read are still reported) until
   * the returned function is called; holds nest. For a consumer whose own output is backed up, e.g. a full stdout.
   */
  holdReceive(): () => void {
    this.receiveHolds++;
    this.updateReading();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.receiveHolds--;
      this.updateReading();
    };
  }

  /** Pauses or resumes reading the live socket as the receive backlog and the holds ask. */
  private updateReading(): void {
    const session = this.core.live;
    const pause = this.pipeline.saturated || this.receiveHolds > 0;
    if (pause && session && this.core.readPaused !== session) {
      this.core.readPaused = session;
      session.pauseReading();
    } else if (!pause && this.core.readPaused) {
      if (this.core.readPaused === session) session.resumeReading();
      this.core.readPaused = undefined;
    }
  }

  /** Resolves when every frame received so far has been persisted and reported. */
  idle(): Promise<void> {
    return this.pipeline.idle();
  }

  // ─── connection lifecycle ────────────────────────────────────────────────────────────────────────────────────

  /** The loop's session reached `hello-ok`: it is the live one; replay begins. */
  private onHelloOk(session: LiveSession, hello: HelloInfo): void {
    this.core.live = session;
    const mode: DeliveryMode = hello.ackEpoch !== undefined ? 'v2' : this.o.capabilities.reliable_delivery ? 'v1' : 'legacy';
    this.ack.begin(mode, hello.ackEpoch);
    this.core.replaying = true;
    this.replayFrames = 0;
    if (hello.deviceId !== undefined && hello.deviceId !== this.device) {
      this.warn(new HubError('BAD_OPTIONS', `the hub resolved device id ${hello.deviceId}, not ${this.device}`, { resolved: hello.deviceId }));
    }
    this.setState({ state: 'replaying', deliveryMode: mode });
    this.updateReading();
    this.liveness.begin();
    for (const userId of this.presence.list()) session.send(uplink(EVENT.presenceSubscribe, this.ids.traceId('pres'), this.clock.now(), { user_id: userId }));
    this.typingOut.resendActive();
    this.sends.pump();
  }

  /** The loop's session ended: nothing is live; a cursor reset of ours that it confirms is settled. */
  private onSessionEnd(session: LiveSession): void {
    this.core.live = undefined;
    this.core.readPaused = undefined;
    this.core.replaying = false;
    this.ack.end();
    this.outbox.requeueAll();
    this.liveness.end();
    const reset = this.resetRequest && this.resetRequest.sessionId === session.id ? this.resetRequest : undefined;
    if (!reset) return;
    this.resetRequest = undefined;
    this.core.resetSession = undefined;
    this.clock.clearTimeout(reset.timer);
    if (reset.clearLocal) {
      this.pipeline.drainNow();
      this.store.inbox.clear();
    }
    reset.resolve();
  }

  private setState(next: StateChange): void {
    this.core.state = next.state;
    this.statusValue = { ...next, since: this.clock.now(), attempt: this.loop.attempt, deviceId: this.device };
    this.o.logger.debug?.('hub state', { state: next.state, cause: next.cause, reason: next.reason, retryInMs: next.retryInMs });
    this.core.events.emit('state', this.status());
  }

  private onReplayDone(sessionId: number, fallback: boolean): void {
    if (this.core.live?.id !== sessionId || !this.core.replaying) return;
    this.core.replaying = false;
    this.liveness.replayEnded();
    this.ack.flush();
    this.setState({ state: 'connected', deliveryMode: this.ack.deliveryMode });
    this.core.events.emit('replay-done', { frames: this.replayFrames, fallback });
    this.resendReadCursors();
  }

  private sendAck(mode: 'v2' | 'v1', value: number, epoch: string | undefined): boolean {
    const session = this.core.live;
    if (!session) return false;
    const frame =
      mode === 'v2'
        ? uplink(EVENT.syncAck, this.ids.traceId('sack'), this.clock.now(), { dseq: value, epoch: epoch ?? '' })
        : uplink(EVENT.cursorAck, this.ids.traceId('cack'), this.clock.now(), { seq: value });
    return session.send(frame);
  }

  private sendPresenceUnsubscribe(userId: string): void {
    this.core.live?.send(uplink(EVENT.presenceUnsubscribe, this.ids.traceId('pres'), this.clock.now(), { user_id: userId }));
  }

  private sendTyping(chatId: string, isTyping: boolean): void {
    this.core.live?.send(uplink(EVENT.typing, this.ids.traceId('typ'), this.clock.now(), { is_typing: isTyping }, { chat_id: chatId }));
  }

  private sendRead(chatId: string, at: number): void {
    if (this.core.live?.send(uplink(EVENT.read, this.ids.traceId('read'), this.clock.now(), { last_read_emitted_at: at }, { chat_id: chatId }))) {
      this.store.kv.setMax(readSentKey(chatId), at);
    }
  }

  /** After replay (which brought the hub's watermarks): every chat read further here than the hub knows. */
  private resendReadCursors(): void {
    for (const key of this.store.kv.keys(READ_PREFIX)) {
      const chatId = key.slice(READ_PREFIX.length);
      const local = this.store.kv.getNumber(key);
      const sent = this.store.kv.getNumber(readSentKey(chatId)) ?? 0;
      if (local !== undefined && local > sent) this.sendRead(chatId, local);
    }
  }

  // ─── receive path wiring ─────────────────────────────────────────────────────────────────────────────────────

  private receiveServices(): ReceiveServices {
    return {
      core: this.core,
      store: this.store,
      outbox: this.outbox,
      traces: this.traces,
      gate: this.gate,
      typingGate: this.typingGate,
      typing: this.typingIn,
      streams: this.streams,
      permissions: this.permissions,
      history: this.history,
      notifySeen: this.store.seen('hub.notify-events', { capacity: 10_000 }),
      sends: this.sends.settlement(),
      persisters: this.persisters,
      inboxBodyMaxBytes: 64 * 1024,
    };
  }

  /** How the parts' internal events (core.ts) move the client's state: the one place a session's life is ordered. */
  private listen(): void {
    const { bus } = this.core;
    bus.on('state', (next) => this.setState(next));
    bus.on('warning', (err) => {
      this.o.logger.warn?.(err.message, { code: err.code });
      this.core.events.emit('warning', err);
    });
    bus.on('session-open', ({ session, hello }) => this.onHelloOk(session, hello));
    bus.on('frame', ({ session, parsed }) => {
      if (session !== this.core.live) return;
      if (this.core.replaying) this.replayFrames++;
      this.liveness.frameSeen();
      this.pipeline.push({ sessionId: session.id, parsed, replay: this.core.replaying });
    });
    bus.on('dseq-gap', ({ expected, got }) => {
      this.dseqGaps++;
      this.warn(new HubError('DSEQ_GAP', `dseq ${got} arrived where ${expected} was due; reconnecting so that replay refills the gap`, { expected, got }));
    });
    bus.on('session-end', ({ session }) => this.onSessionEnd(session));
    // The pipeline may still hold replayed frames; end replay only once they are handled.
    bus.on('replay-idle', (session) => void this.pipeline.idle().then(() => this.onReplayDone(session.id, true)));
    bus.on('replay-done', (sessionId) => this.onReplayDone(sessionId, false));
    bus.on('persisted', ({ sessionId, dseq, seq }) => {
      if (this.core.live?.id !== sessionId) return;
      if (dseq !== undefined) this.ack.persistedDseq(dseq);
      if (seq !== undefined) this.ack.persistedSeq(seq);
    });
    bus.on('batch-committed', () => {
      this.core.persistFailed = false;
      this.ack.tick();
    });
    bus.on('commit-failed', (err) => {
      this.core.persistFailed = true;
      this.warn(new HubError('STORE_FAILED', `received frames could not be persisted; reconnecting so that replay brings them back: ${(err as Error).message}`, {}, { cause: err }));
      this.core.live?.close('dead-socket', true);
    });
    bus.on('backlog', () => this.updateReading());
  }

  private storedDeviceId(): string {
    const stored = this.store.kv.get(DEVICE_ID_KEY);
    if (stored) return stored;
    const minted = mintDeviceId(() => this.clock.now());
    this.store.kv.set(DEVICE_ID_KEY, minted);
    return minted;
  }

  private warn(err: HubError): void {
    this.core.warn(err);
  }

  private listenerThrew(event: string, err: unknown): void {
    const wrapped = new HubError('LISTENER_THREW', `a '${event}' listener threw: ${(err as Error)?.message ?? String(err)}`, { event }, { cause: err });
    this.o.logger.error?.(wrapped.message, { code: wrapped.code });
    if (event !== 'warning') this.core.events.emit('warning', wrapped);
  }
}
