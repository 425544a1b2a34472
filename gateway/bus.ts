/**
 * The gateway's typed event bus. Every event has one payload type, so a misspelt event name or a wrong payload
 * fails to compile; every listener is registered under an owner so that `offAll(owner)` detaches exactly what one
 * extension added; and a listener that throws is logged and skipped, so one faulty extension cannot stop the router
 * or starve the others (the bus keeps going, as Zigbee2MQTT's does).
 */
import type { Logger } from 'pino';
import { TypedEmitter, type ListenersOf } from '../lib/typed-emitter';
import type { MeshMessage } from '../lib/mesh/message';
import type { RadioPeer, RadioStatus } from './radios/radio';

/** Where a frame came from: radio, neighbour, signal strength, arrival time (ms since the epoch). */
export interface Reception {
  radioId: string;
  peerId: string;
  /** The neighbour's `off1…` address when its radio learnt it (the transport identity of the control gate). */
  peerAddress?: string;
  rssi?: number;
  receivedAt: number;
}

/**
 * Lets an extension hold back the mesh ACK of a message addressed to the gateway until it has really taken the
 * message over (MQTT PUBACK, hub `message.ack`). `claim()` returns the settle function; the router sends the ACK
 * once every claim of the message has settled with `true`, and never when one settles with `false` (the sender's
 * retry brings the message again).
 */
export interface DeliveryClaims {
  claim(by: string): (delivered: boolean) => void;
}

export interface MeshMessageEvent {
  message: MeshMessage;
  /** `message.id` as text, spelt once for every listener (lowercase hyphenated; a flat string, see MessageId.toString). */
  id: string;
  /** The bytes as they arrived (JSON or binary v1); for the raw-frame topic. */
  frame: Uint8Array;
  codec: 'json' | 'binary';
  rx: Reception;
  /** True when the recipient is this gateway: the only messages the gateway ever ACKs. */
  toGateway: boolean;
  /**
   * A resend of a message to the gateway that was already seen. Extensions that still hold it (an outbox entry not
   * yet PUBACKed) claim it again, so the re-ACK waits for the same condition as the first ACK; nothing else is redone.
   */
  duplicate: boolean;
  /** True only when the sender is known to be who it claims (see `senderVerified` in router.ts). */
  senderVerified: boolean;
  /** Present only when `toGateway` and the message asks for an ACK. */
  delivery?: DeliveryClaims;
}

export interface MeshAckEvent {
  /** The id of the message the ACK settles (lowercase hyphenated). */
  ackFor: string;
  from: string;
  transport: string;
  hopCount: number;
  rx: Reception;
}

export interface FrameRejectedEvent {
  rx: Reception;
  code: string;
  reason: string;
  messageId?: string;
}

export interface MeshSentEvent {
  message: MeshMessage;
  /** Neighbours the frame was written to, as `radioId/peerId`. */
  via: string[];
  origin: 'gateway' | 'forward' | 'ack';
}

export interface PeerChangeEvent {
  radioId: string;
  peer: RadioPeer;
  change: 'up' | 'down' | 'updated';
}

export interface MqttStateEvent {
  connected: boolean;
  protocolVersion?: 4 | 5;
  reason?: string;
}

export interface BusEvents {
  meshMessage: MeshMessageEvent;
  meshAck: MeshAckEvent;
  meshSent: MeshSentEvent;
  frameRejected: FrameRejectedEvent;
  radioStatus: RadioStatus;
  peerChange: PeerChangeEvent;
  mqttState: MqttStateEvent;
  started: { at: number };
  stopping: { reason: string };
}

export type BusEventName = keyof BusEvents;
type Listener<K extends BusEventName> = (payload: BusEvents[K]) => void | Promise<void>;

/**
 * The gateway's typed bus, over the project's one typed emitter: listeners register under an owner so that an
 * extension's `stop()` detaches all of its own at once (`offAll`), and a listener that throws or rejects is logged
 * with its owner while the event goes on to the others.
 */
export class EventBus {
  private readonly emitter = new TypedEmitter<ListenersOf<BusEvents>>(() => undefined);
  private readonly owned = new Map<object, Array<{ event: BusEventName; wrapped: (payload: never) => void }>>();
  private errorCount = 0;

  constructor(private readonly logger: Logger) {}

  on<K extends BusEventName>(event: K, owner: object, listener: Listener<K>): void {
    const wrapped = (payload: BusEvents[K]): void => {
      try {
        const result = listener(payload);
        if (result && typeof (result as Promise<void>).catch === 'function') {
          (result as Promise<void>).catch((err: unknown) => this.report(event, owner, err));
        }
      } catch (err) {
        this.report(event, owner, err);
      }
    };
    this.emitter.on(event, wrapped as ListenersOf<BusEvents>[K]);
    let list = this.owned.get(owner);
    if (!list) this.owned.set(owner, (list = []));
    list.push({ event, wrapped: wrapped as (payload: never) => void });
  }

  /** Removes every listener `owner` registered, on every event. */
  offAll(owner: object): void {
    for (const { event, wrapped } of this.owned.get(owner) ?? []) this.emitter.off(event, wrapped as ListenersOf<BusEvents>[typeof event]);
    this.owned.delete(owner);
  }

  emit<K extends BusEventName>(event: K, payload: BusEvents[K]): void {
    this.emitter.emit(event, payload as never);
  }

  listenerCount(event: BusEventName): number {
    return this.emitter.listenerCount(event);
  }

  /** Listener failures so far (exported as a metric: a non-zero value is a bug in an extension). */
  get errors(): number {
    return this.errorCount;
  }

  private report(event: string, owner: object, err: unknown): void {
    this.errorCount += 1;
    const name = (owner as { name?: string }).name ?? owner.constructor?.name ?? 'unknown';
    this.logger.error({ event, owner: name, err }, 'bus listener failed; the event went on to the other listeners');
  }
}
