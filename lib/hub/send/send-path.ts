/**
 * The send path of the hub client: a durable uplink (`message.send`, `message.reply`, `message.reaction`) is checked
 * and composed at once, staged in the outbox (lib/hub/send/outbox.ts over lib/store's DurableOutbox), put on the live
 * connection within the in-flight window, sent again when its answer is overdue, and settled: `queued` once the
 * disk has it, then the hub's `message.ack` (or `message.error`, or the caller's expiry) on its handle and as
 * events. It reads the live session and whether the client stops from the shared core (core.ts), and checks the
 * chat gate the receive path opens and closes.
 */
import type { ChatGate } from './chat-gate';
import type { TimerHandle } from '../../clock';
import type { HubCore } from '../core';
import type { Composed } from './compose';
import { HubError } from '../errors';
import type { SendAck, SendHandle, SendQueued, SendRejection } from '../events';
import type { JsonObject } from '../json';
import { Outbox, stampBytes, wireText, type NewRecord, type SendEntry } from './outbox';
import { pendingSend, refusedSend, type PendingSend } from './send-handle';
import { checkSendTag, type SendTag } from '../send-tag';
import { utf8Length } from '../../bytes';
import { coalesced } from '../../coalesce';

/** The client's side of a send that got its answer (what the receive path calls for `message.ack` / `message.error`). */
export interface SendSettlement {
  acked(entry: SendEntry, ack: SendAck): void;
  rejected(entry: SendEntry | undefined, rejection: SendRejection): void;
}

/** Refuses a send to a chat whose gate is closed (CHAT_GATED). */
export function checkGate(gate: ChatGate, chatId: string): void {
  const until = gate.closedUntil(chatId);
  if (until !== undefined) {
    throw new HubError('CHAT_GATED', `sends to ${chatId} are paused after chat_not_found/not_member until ${new Date(until).toISOString()}`, { chatId, until });
  }
}

/** Refuses a frame above the hub's cap (FRAME_TOO_LARGE). */
export function checkFrameSize(frame: JsonObject, maxFrameBytes: number): void {
  checkFrameBytes(utf8Length(JSON.stringify(frame)), maxFrameBytes);
}

/** `checkFrameBytes` of a frame's JSON plus `extra` bytes, measured only when it could be over (3 bytes a unit at most). */
function checkFrameJson(json: string, extra: number, maxFrameBytes: number): void {
  if (json.length * 3 + extra <= maxFrameBytes) return;
  checkFrameBytes(utf8Length(json) + extra, maxFrameBytes);
}

function checkFrameBytes(bytes: number, maxFrameBytes: number): void {
  if (bytes > maxFrameBytes) {
    throw new HubError('FRAME_TOO_LARGE', `the frame is ${bytes} bytes, above the hub's ${maxFrameBytes}-byte cap; upload media instead (§15)`, {
      bytes,
      limit: maxFrameBytes,
    });
  }
}

export class SendPath {
  readonly outbox: Outbox;
  private readonly waiters = new Map<string, PendingSend>();
  /** Hub answers not reported yet: until the send's own fsync ended (`queued` comes first). */
  private readonly answers = new Map<SendEntry, SendAck>();
  /** One pump for a whole batch of answers (each frees a slot of the window), after its effects ran. */
  private readonly schedulePump = coalesced(() => this.pump());
  private outboxTimer: TimerHandle | undefined;
  private outboxTimerAt: number | undefined;
  /** Sends put on the wire again (a second attempt or later). */
  retransmits = 0;

  constructor(
    private readonly core: HubCore,
    private readonly gate: ChatGate,
  ) {
    const { options } = core;
    this.outbox = new Outbox(
      core.store,
      core.clock,
      { capacity: options.outboxCapacity, ackTimeoutMs: options.ackTimeoutMs, maxInFlight: options.maxInFlight },
      {
        committed: (results) => this.committed(results),
        durable: (entry, err) => this.durable(entry, err),
        settled: (entry) => this.answered(entry),
        syncFailed: (err) =>
          core.warn(new HubError('STORE_FAILED', `the outbox could not be synced to disk; its latest sends are refused: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err })),
        synced: () => {
          if (!core.stopping) this.pump();
        },
        warn: (err) => core.warn(err),
      },
    );
  }

  /** `stop()` begins: what is staged is committed now. */
  commitStaged(): void {
    this.outbox.commit();
  }

  /**
   * `stop()`, once the session ended: no more timers, removals committed, and every committed send on disk (or
   * failed) before its caller hears CLIENT_STOPPED with `durable: true`. The commits' own handlers run first: their
   * promises settle no later than this one.
   */
  async settleCommits(): Promise<void> {
    this.core.clock.clearTimeout(this.outboxTimer);
    this.commitRemovals();
    if (this.outbox.syncPending) await this.core.store.sync().catch(() => undefined);
  }

  /** `stop()`, last: every unanswered send's promise rejects with CLIENT_STOPPED (the sends stay in the outbox). */
  rejectWaiters(): void {
    for (const [traceId, waiter] of this.waiters) {
      const entry = this.outbox.byTrace(traceId);
      waiter.settleQueued(undefined);
      waiter.reject(
        new HubError('CLIENT_STOPPED', 'the client stopped before the hub answered; the send stays in the outbox and goes out on the next start', {
          messageId: entry?.messageId,
          traceId,
          chatId: entry?.chatId,
          durable: true,
          ...(entry?.tag !== undefined ? { tag: entry.tag } : {}),
        }),
      );
    }
    this.waiters.clear();
  }

  /**
   * Checks and composes a send now (a refusal rejects at once), then stages it for the group commit: the sends of
   * one event-loop turn are written to the outbox in one transaction that does not wait for the disk, put on the
   * wire, and synced off the event loop (`store.sync()`: commits made while an fsync runs share the next one, so a
   * send waits for at most two). `queued`, and the hub's answer, are reported once its fsync ended.
   */
  enqueue(compose: () => Composed, tagOf: () => unknown): SendHandle {
    let c: Composed | undefined;
    try {
      if (this.core.stopping || this.core.state === 'stopped') throw new HubError('CLIENT_STOPPED', 'the client is stopped');
      c = compose();
      const tag: SendTag | undefined = checkSendTag(tagOf());
      checkGate(this.gate, c.chatId);
      // The frame is serialized once: this text is measured here, stored, and stamped for the wire at each attempt.
      const frameJson = JSON.stringify(c.frame);
      const now = this.core.clock.now();
      checkFrameJson(frameJson, stampBytes(now), this.core.options.maxFrameBytes);
      if (this.outbox.size + this.outbox.staged >= this.core.options.outboxCapacity) {
        throw new HubError('OUTBOX_FULL', `the outbox is full (${this.core.options.outboxCapacity} unanswered sends); nothing was queued`, { capacity: this.core.options.outboxCapacity });
      }
      const traceId = c.frame.trace_id as string;
      const pending = pendingSend(c.messageId, traceId);
      this.waiters.set(traceId, pending);
      const record: NewRecord = {
        messageId: c.messageId,
        traceId,
        event: c.event,
        chatId: c.chatId,
        frame: c.frame,
        frameJson,
        createdAt: now,
        expiresAt: this.core.options.sendExpiryMs > 0 ? now + this.core.options.sendExpiryMs : undefined,
      };
      if (tag !== undefined) record.tag = tag;
      this.outbox.stage(record);
      return pending.handle;
    } catch (err) {
      return refusedSend(err, c?.messageId, c?.frame.trace_id as string | undefined);
    }
  }

  /**
   * The group commit of staged sends returned (the outbox commits the sends of one turn, and the pending removals of
   * answered ones, in one transaction that does not wait for the disk): refusals are reported, the rest go on the
   * wire while the store syncs (`store.sync()`: in the thread pool, one fsync shared by every commit meanwhile);
   * `durable` reports them once it ended.
   */
  private committed(results: Array<{ record: { traceId: string }; entry?: SendEntry; error?: HubError }>): void {
    for (const r of results) if (r.error) this.settleWaiter(r.record.traceId, undefined, r.error);
    // The fsync and the hub's round trip overlap; an answer that wins the race waits for the fsync (`answers`). In
    // memory the commit is all the durability there is: `durable` comes at once, and pumps.
    if (this.core.store.kind !== 'memory') this.pump();
  }

  /** The fsync of the entry's commit ended: report it queued (and an early answer right after), or fail it. */
  private durable(e: SendEntry, err: unknown): void {
    // Answered already: the hub has it, which no disk failure here can undo.
    if (err === undefined || e.answered) this.reportQueued(e);
    else this.failUnsynced(e, err);
  }

  /** Answered and durable: the hub's answer is reported. */
  private answered(e: SendEntry): void {
    const ack = this.answers.get(e);
    if (ack === undefined) return;
    this.answers.delete(e);
    this.core.events.emit('ack', ack);
    this.settleWaiter(e.traceId, ack, undefined);
  }

  private reportQueued(e: SendEntry): void {
    const queued: SendQueued = { event: e.event, messageId: e.messageId, traceId: e.traceId, chatId: e.chatId, ...(e.tag !== undefined ? { tag: e.tag } : {}) };
    this.core.events.emit('queued', queued);
    this.waiters.get(e.traceId)?.settleQueued(queued);
  }

  /**
   * A send whose fsync failed: its caller learns it is not durable (it may have reached the hub: the hub dedups a
   * retry with the same id), its row is dropped if the disk still lets us, and a late answer is ignored.
   */
  private failUnsynced(entry: SendEntry, err: unknown): void {
    try {
      this.outbox.removeDurable(entry);
    } catch {
      // The disk is failing; the row may go out after a restart, with the same ids (the hub dedups it).
    }
    this.outbox.forget(entry);
    this.settleWaiter(
      entry.traceId,
      undefined,
      new HubError('STORE_FAILED', `the send could not be made durable: ${(err as Error)?.message ?? String(err)}`, {
        event: entry.event,
        messageId: entry.messageId,
        traceId: entry.traceId,
        chatId: entry.chatId,
        durable: false,
        ...(entry.tag !== undefined ? { tag: entry.tag } : {}),
      }, { cause: err }),
    );
  }

  private commitRemovals(): void {
    if (this.outbox.pendingRemovals === 0 || this.core.store.closed) return;
    // No fsync waited for: a removal lost in a crash only repeats a send the hub dedups.
    this.outbox.commitRemovals();
  }

  /** Puts sendable outbox entries on the live connection, oldest first, within the in-flight window. */
  pump(): void {
    const session = this.core.live;
    if (session && !this.core.stopping) {
      const entries = this.outbox.takeSendable();
      if (entries.length > 0) {
        session.batch(() => {
          const now = this.core.clock.now();
          for (const entry of entries) {
            if (entry.attempts > 1) this.retransmits++;
            if (!session.sendText(wireText(entry, now))) {
              this.outbox.requeueAll();
              break;
            }
          }
        });
      }
    }
    this.armOutboxTimer();
  }

  private armOutboxTimer(): void {
    if (this.core.stopping) {
      this.core.clock.clearTimeout(this.outboxTimer);
      this.outboxTimer = undefined;
      this.outboxTimerAt = undefined;
      return;
    }
    const next = this.outbox.nextDeadline();
    // A timer due no later than needed stays, and so does one when nothing is due: firing early finds nothing
    // overdue and arms again, where re-arming at every pump (the oldest send in flight changes with each answer,
    // and one send at a time empties the window at each) would cost a timer per message.
    if (next === undefined || next === this.outboxTimerAt) return;
    if (this.outboxTimerAt !== undefined && this.outboxTimerAt <= next) return;
    this.core.clock.clearTimeout(this.outboxTimer);
    this.outboxTimerAt = next;
    this.outboxTimer = this.core.clock.setTimeout(() => {
      this.outboxTimer = undefined;
      this.outboxTimerAt = undefined;
      this.onOutboxDeadline();
    }, Math.max(1, next - this.core.clock.now()));
  }

  private onOutboxDeadline(): void {
    for (const entry of this.outbox.expired()) {
      try {
        this.outbox.removeDurable(entry);
      } catch (err) {
        this.core.warn(new HubError('STORE_FAILED', `could not drop an expired send: ${(err as Error).message}`, {}, { cause: err }));
        continue;
      }
      this.outbox.forget(entry);
      const rejection: SendRejection = {
        origin: 'client',
        event: entry.event,
        messageId: entry.messageId,
        traceId: entry.traceId,
        chatId: entry.chatId,
        code: 'expired',
        reason: `no answer within ${this.core.options.sendExpiryMs} ms`,
        rejectedAt: this.core.clock.now(),
        matched: true,
        ...(entry.tag !== undefined ? { tag: entry.tag } : {}),
      };
      this.core.events.emit('rejected', rejection);
      this.settleWaiter(
        entry.traceId,
        undefined,
        new HubError('SEND_EXPIRED', rejection.reason as string, {
          event: entry.event,
          messageId: entry.messageId,
          traceId: entry.traceId,
          chatId: entry.chatId,
          rejectedAt: rejection.rejectedAt,
          ...(entry.tag !== undefined ? { tag: entry.tag } : {}),
        }),
      );
    }
    // Only a live connection re-sends: after a reconnect everything unanswered goes out again anyway.
    if (this.core.live) this.outbox.requeueOverdue();
    this.pump();
  }

  private settleWaiter(traceId: string, ack: SendAck | undefined, err: HubError | undefined): void {
    const waiter = this.waiters.get(traceId);
    if (!waiter) return;
    this.waiters.delete(traceId);
    // A no-op once the send was queued; otherwise it tells `queued` that it never will be.
    waiter.settleQueued(undefined);
    if (ack) waiter.resolve(ack);
    else waiter.reject(err as HubError);
  }

  settlement(): SendSettlement {
    return {
      acked: (entry, ack) => {
        // Answered twice in one batch (a retransmit): report it once.
        if (!this.outbox.holds(entry)) return;
        // Reported by `answered` once the send is on disk: at once, or (faster than our own fsync) right after
        // `queued`, when that fsync ends.
        this.answers.set(entry, ack);
        this.outbox.retire(entry);
        this.schedulePump();
      },
      rejected: (entry, rejection) => {
        if (entry) this.outbox.forget(entry);
        this.core.events.emit('rejected', rejection);
        if (entry) {
          this.settleWaiter(
            entry.traceId,
            undefined,
            new HubError('SEND_REJECTED', `the hub refused ${entry.event} ${entry.messageId}: ${rejection.code}${rejection.reason ? ` (${rejection.reason})` : ''}`, {
              serverCode: rejection.code,
              reason: rejection.reason,
              event: entry.event,
              messageId: entry.messageId,
              traceId: entry.traceId,
              chatId: entry.chatId,
              ...(rejection.rejectedAt !== undefined ? { rejectedAt: rejection.rejectedAt } : {}),
              ...(entry.tag !== undefined ? { tag: entry.tag } : {}),
            }),
          );
          this.schedulePump();
        }
      },
    };
  }
}
