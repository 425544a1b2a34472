/**
 * What a handler of one downlink event may use. A handler runs inside the store transaction of its batch: it
 * writes to the store directly, and everything else it wants to happen (events, uplinks such as receipts, changes
 * to in-memory state) it queues on the context, to run only after the transaction committed.
 */
import type { Clock } from '../clock';
import type { ChatGate } from '../chat-gate';
import type { InboundFrame, Uplink } from '../envelope';
import type { HubClientEvents, SendAck, SendRejection } from '../events';
import type { InboundPersisters } from '../inbound-persister';
import type { Outbox, SendEntry } from '../outbox';
import type { PermissionCards } from '../permission-cards';
import type { StreamAssembler } from '../stream-assembler';
import type { TraceRegistry } from '../trace-registry';
import type { TypingReceiver } from '../typing';
import type { Queue, SeenSet, Store } from '../../store';

/** The client's side of a send that got its answer. */
export interface SendSettlement {
  acked(entry: SendEntry, ack: SendAck): void;
  rejected(entry: SendEntry | undefined, rejection: SendRejection): void;
}

export interface ReceiveServices {
  readonly store: Store;
  readonly clock: Clock;
  readonly userId: string;
  readonly deviceId: () => string;
  readonly outbox: Outbox;
  readonly traces: TraceRegistry;
  readonly gate: ChatGate;
  /** The weaker gate of `conversation.dissolved`: it holds back typing only (§14.3). */
  readonly typingGate: ChatGate;
  readonly typing: TypingReceiver;
  readonly streams: StreamAssembler;
  readonly permissions: PermissionCards;
  /** Durable copies of received `history.transit` frames (delete-on-ack on the hub side, §11.7). */
  readonly history: Queue;
  readonly notifySeen: SeenSet;
  readonly sends: SendSettlement;
  /** Consumers' durable writes that join the inbox commit of each reported message (inbound-persister.ts). */
  readonly persisters: InboundPersisters;
  /** Largest message body copied into the inbox row (the fingerprint covers all of it regardless). */
  readonly inboxBodyMaxBytes: number;
  readonly emit: <K extends keyof HubClientEvents & string>(event: K, value: HubClientEvents[K]) => void;
  /** True when `event` has a listener now (so that a value nobody hears is not built). */
  readonly listens: (event: keyof HubClientEvents & string) => boolean;
  /** `replay.done` (or its idle fallback) for the session that received it. */
  readonly replayDone: (sessionId: number) => void;
}

export class FrameContext {
  readonly effects: Array<() => void> = [];

  constructor(
    readonly services: ReceiveServices,
    readonly frame: InboundFrame,
    readonly replay: boolean,
    readonly sessionId: number,
    private readonly sendOnSession: (frame: Uplink) => void,
  ) {}

  get userId(): string {
    return this.services.userId;
  }

  get deviceId(): string {
    return this.services.deviceId();
  }

  get now(): number {
    return this.services.clock.now();
  }

  /** True when the frame is this very device's own echo (`sender.id` is us and `origin_device_id` is this device). */
  get isOwnEcho(): boolean {
    return this.frame.sender?.id === this.userId && this.frame.originDeviceId === this.deviceId;
  }

  get fromSelf(): boolean {
    return this.frame.sender?.id === this.userId;
  }

  emit<K extends keyof HubClientEvents & string>(event: K, value: HubClientEvents[K]): void {
    this.effects.push(() => this.services.emit(event, value));
  }

  later(fn: () => void): void {
    this.effects.push(fn);
  }

  /** An uplink that goes out after commit, on the connection the frame came from (receipts). */
  reply(frame: Uplink): void {
    this.effects.push(() => this.sendOnSession(frame));
  }
}

export type Handler = (ctx: FrameContext) => void;
