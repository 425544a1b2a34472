/**
 * Hub sends of the bridge by `message_id`, and who waits for each one's answer: the mesh ACK of a message (or of the
 * last chunk of a file) is held until the hub's `message.ack` for the message it became.
 *
 * A `message_id` is sent once while it is unanswered: a mesh resend, a second route or a restart that finds the send
 * still in the client's durable outbox attaches to the send already queued instead of queueing another one. Answers
 * come from the client's `ack` / `rejected` events, which also cover sends queued by an earlier run of the process.
 */
import type { HubClient } from '../../../lib/hub/client';
import type { SendInput } from '../../../lib/hub/send/compose';
import type { SendAck, SendRejection } from '../../../lib/hub/events';

export type Settle = (delivered: boolean) => void;

export interface HubSendsCounters {
  sent: number;
  acked: number;
  rejected: number;
  refused: number;
  attached: number;
}

export class HubSends {
  private readonly waiting = new Map<string, Settle[]>();
  private readonly onAck = (a: SendAck): void => this.finish(a.messageId, true, 'acked');
  private readonly onRejected = (r: SendRejection): void => {
    if (r.messageId !== undefined) this.finish(r.messageId, false, 'rejected');
  };
  readonly counters: HubSendsCounters = { sent: 0, acked: 0, rejected: 0, refused: 0, attached: 0 };

  constructor(
    private readonly client: HubClient,
    private readonly onRefused: (messageId: string, err: unknown) => void = () => undefined,
  ) {
    client.on('ack', this.onAck);
    client.on('rejected', this.onRejected);
    // Sends an earlier run queued durably are still owed an answer; resends of their mesh messages wait for it.
    for (const entry of client.pendingSends()) if (!this.waiting.has(entry.messageId)) this.waiting.set(entry.messageId, []);
  }

  /** Unanswered sends this bridge knows of. */
  get pending(): number {
    return this.waiting.size;
  }

  has(messageId: string): boolean {
    return this.waiting.has(messageId);
  }

  /** Waits for the answer of a send already queued; false when there is none. */
  attach(messageId: string, settle: Settle): boolean {
    const list = this.waiting.get(messageId);
    if (list === undefined) return false;
    list.push(settle);
    this.counters.attached += 1;
    return true;
  }

  /** Queues the send unless the same id is already on its way; `settle` learns the hub's answer. */
  send(input: SendInput & { messageId: string }, settle?: Settle): void {
    if (settle !== undefined && this.attach(input.messageId, settle)) return;
    if (this.waiting.has(input.messageId)) return;
    this.waiting.set(input.messageId, settle ? [settle] : []);
    this.counters.sent += 1;
    this.client.send(input).catch((err: unknown) => {
      const code = (err as { code?: string }).code;
      // Stopped: the send is durable and goes out with the next start; SEND_REJECTED/SEND_EXPIRED came as `rejected`.
      if (code === 'CLIENT_STOPPED' || code === 'SEND_REJECTED' || code === 'SEND_EXPIRED') return;
      // Refused before it was queued (outbox full, chat gated, bad argument): the mesh sender will try again.
      this.onRefused(input.messageId, err);
      this.finish(input.messageId, false, 'refused');
    });
  }

  /** Detaches from the client; whoever still waits learns nothing (the gateway is stopping, no ACK can go out). */
  close(): void {
    this.client.off('ack', this.onAck);
    this.client.off('rejected', this.onRejected);
    this.waiting.clear();
  }

  private finish(messageId: string, delivered: boolean, outcome: 'acked' | 'rejected' | 'refused'): void {
    const list = this.waiting.get(messageId);
    if (list === undefined) return;
    this.waiting.delete(messageId);
    this.counters[outcome] += 1;
    for (const settle of list) settle(delivered);
  }
}
