/**
 * What a handler of one downlink event may use. A handler runs inside the store transaction of its batch: it
 * writes to the store directly, and everything else it wants to happen (events, uplinks such as receipts, changes
 * to in-memory state) it queues on the context, to run only after the transaction committed.
 */
import type { ChatGate } from '../../send/chat-gate';
import type { InboundFrame, Uplink } from '../../envelope';
import type { HubCore } from '../../core';
import type { HubClientEvents } from '../../events';
import type { InboundPersisters } from '../inbound-persister';
import type { Outbox } from '../../send/outbox';
import type { SendSettlement } from '../../send/send-path';
import type { PermissionCards } from '../permission-cards';
import type { StreamAssembler } from '../stream-assembler';
import type { TraceRegistry } from '../../trace-registry';
import type { TypingReceiver } from '../../typing';
import type { Queue, SeenSet, Store } from '../../../store';

export interface ReceiveServices {
  /** The client's identity, store, clock and events (core.ts). */
  readonly core: HubCore;
  readonly store: Store;
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
}

export class FrameContext {
  readonly effects: Array<() => void> = [];

  constructor(
    readonly services: ReceiveServices,
    readonly frame: InboundFrame,
    readonly replay: boolean,
    readonly sessionId: number,
  ) {}

  get userId(): string {
    return this.services.core.userId;
  }

  get deviceId(): string {
    return this.services.core.deviceId;
  }

  get now(): number {
    return this.services.core.clock.now();
  }

  /** True when the frame is this very device's own echo (`sender.id` is us and `origin_device_id` is this device). */
  get isOwnEcho(): boolean {
    return this.frame.sender?.id === this.userId && this.frame.originDeviceId === this.deviceId;
  }

  get fromSelf(): boolean {
    return this.frame.sender?.id === this.userId;
  }

  emit<K extends keyof HubClientEvents & string>(event: K, value: HubClientEvents[K]): void {
    this.effects.push(() => this.services.core.report(event, value));
  }

  later(fn: () => void): void {
    this.effects.push(fn);
  }

  /** An uplink that goes out after commit, on the connection the frame came from (receipts). */
  reply(frame: Uplink): void {
    this.effects.push(() => this.services.core.sendOn(this.sessionId, frame));
  }
}

export type Handler = (ctx: FrameContext) => void;
