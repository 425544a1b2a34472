/**
 * The receive path between the read layer and the application (guide §11.7):
 *
 * 1. frames queue up as the socket delivers them (the density check already ran);
 * 2. on the next turn of the event loop, a batch is handled inside ONE store transaction, each frame inside its own
 *    savepoint: a frame whose handler throws (unparseable, unmappable, unpersistable) is rolled back alone, recorded
 *    in the quarantine queue, and counted as handled so its `dseq` is still acked and the stream goes on;
 * 3. after the commit, and only then, each frame's effects run (events, receipts, in-memory state) and its
 *    `dseq` / `seq` is reported persisted to the ack scheduler, which may flush from here (the frame path);
 * 4. if the commit itself fails, nothing is acked and the connection is dropped: replay will bring the frames back.
 *
 * Frames of a connection that has since closed are still persisted, but their acks are not sent (the epoch is gone).
 *
 * The queue of step 1 is bounded (`ReceiveLimits`, count and characters of frame text): once it reaches either limit
 * the pipeline is `saturated` and says so on the internal `backlog` event: the client stops reading the socket (TCP
 * then holds the hub back); when the queue is down to half of both limits, `backlog` (false) tells it to read again. A hub that writes faster than frames are handled,
 * hostile or merely far ahead in a replay, therefore costs at most the limits plus one socket read of memory.
 */
import type { InboundFrame } from '../envelope';
import { HubError } from '../errors';
import { FrameContext, frameEvent, HANDLERS, handleUnknown, STORE_FREE_EVENTS, type ReceiveServices } from './handlers';
import type { ParsedFrame } from '../parse-frame';
import type { Queue } from '../../store';

export const QUARANTINE_QUEUE = 'hub.quarantine';
const QUARANTINE_RAW_MAX = 64 * 1024;
const BATCH_MAX = 512;

export interface PipelineItem {
  sessionId: number;
  parsed: ParsedFrame;
  replay: boolean;
}

/** Frames received but not yet handled: at most this many, and at most this many characters of frame text. */
export interface ReceiveLimits {
  maxFrames: number;
  maxChars: number;
}

export interface PipelineCounters {
  frames: number;
  quarantined: number;
  commitFailures: number;
  /** Times the queue reached a limit (and reading paused). */
  saturations: number;
  /** Most frames queued at once. */
  peakBacklog: number;
}

function chars(item: PipelineItem): number {
  return item.parsed.ok ? item.parsed.frame.raw.length : item.parsed.raw.length;
}

export class ReceivePipeline {
  private readonly queue: PipelineItem[] = [];
  private scheduled = false;
  private stopped = false;
  readonly counters: PipelineCounters = { frames: 0, quarantined: 0, commitFailures: 0, saturations: 0, peakBacklog: 0 };
  private queuedChars = 0;
  private full = false;
  private readonly quarantine: Queue;
  private drainWaiters: Array<() => void> = [];

  constructor(
    private readonly services: ReceiveServices,
    private readonly limits: ReceiveLimits,
  ) {
    this.quarantine = services.store.queue(QUARANTINE_QUEUE, { capacity: 1000, overflow: 'drop-oldest' });
  }

  get backlog(): number {
    return this.queue.length;
  }

  /** A limit was reached and the queue has not drained to half of both since: the reader should pause. */
  get saturated(): boolean {
    return this.full;
  }

  push(item: PipelineItem): void {
    if (this.stopped) return;
    this.queue.push(item);
    this.queuedChars += chars(item);
    if (this.queue.length > this.counters.peakBacklog) this.counters.peakBacklog = this.queue.length;
    if (!this.full && (this.queue.length >= this.limits.maxFrames || this.queuedChars >= this.limits.maxChars)) {
      this.full = true;
      this.counters.saturations++;
      this.services.core.bus.emit('backlog', true);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      // An immediate, not a timer: this is the frame path, which must run even when timers are starved (§11.7).
      setImmediate(() => this.drain());
    }
  }

  /** Resolves once every frame queued so far has been handled. */
  idle(): Promise<void> {
    if (this.queue.length === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Handles whatever is queued now, synchronously (used on stop so nothing received is left unpersisted). */
  drainNow(): void {
    while (this.queue.length > 0) this.runBatch();
    this.checkDrained();
  }

  private checkDrained(): void {
    if (!this.full || this.queue.length > this.limits.maxFrames / 2 || this.queuedChars > this.limits.maxChars / 2) return;
    this.full = false;
    this.services.core.bus.emit('backlog', false);
  }

  stop(): void {
    this.drainNow();
    this.stopped = true;
    this.wakeWaiters();
  }

  private drain(): void {
    this.scheduled = false;
    this.runBatch();
    this.checkDrained();
    if (this.queue.length > 0 && !this.stopped) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    } else this.wakeWaiters();
  }

  private wakeWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private runBatch(): void {
    const batch = this.queue.splice(0, BATCH_MAX);
    if (batch.length === 0) return;
    for (const item of batch) this.queuedChars -= chars(item);
    const effects: Array<Array<() => void>> = [];
    try {
      this.services.store.transaction(() => {
        for (const item of batch) effects.push(this.handleOne(item));
      });
    } catch (err) {
      this.counters.commitFailures++;
      this.services.core.bus.emit('commit-failed', err);
      return;
    }
    batch.forEach((item, i) => {
      this.counters.frames++;
      // Persisted first, so that an effect that flushes acks (replay.done) includes the frame's own dseq.
      const dseq = item.parsed.ok ? item.parsed.frame.dseq : item.parsed.dseq;
      const seq = item.parsed.ok ? item.parsed.frame.seq : undefined;
      // Most frames of a busy sender are acks, which carry neither: nothing to report for them.
      if (dseq !== undefined || seq !== undefined) this.services.core.bus.emit('persisted', { sessionId: item.sessionId, dseq, seq });
      for (const effect of effects[i]) {
        try {
          effect();
        } catch (err) {
          this.services.core.warn(new HubError('STORE_FAILED', `an effect of a received frame failed: ${(err as Error).message}`, {}, { cause: err }));
        }
      }
    });
    this.services.core.bus.emit('batch-committed', undefined);
  }

  /** Runs one frame in its own savepoint; returns what to do after commit (a quarantine note if it failed). */
  private handleOne(item: PipelineItem): Array<() => void> {
    const { parsed } = item;
    if (!parsed.ok) return this.quarantineFrame(parsed.reason, '', parsed.raw, parsed.dseq, undefined);
    const frame = parsed.frame;
    const ctx = new FrameContext(this.services, frame, item.replay, item.sessionId);
    const handler = HANDLERS[frame.event] ?? handleUnknown;
    try {
      if (STORE_FREE_EVENTS.has(frame.event)) handler(ctx);
      else this.services.store.transaction(() => handler(ctx));
    } catch (err) {
      return this.quarantineFrame((err as Error)?.message ?? String(err), frame.event, frame.raw, frame.dseq, frame.seq);
    }
    this.afterHandled(ctx, frame);
    return ctx.effects;
  }

  /**
   * What every frame does besides its own handler, after commit: reopen a gated chat, and show up on the `frame`
   * tap (its value built only when someone listens: most frames of a busy client are acks nobody taps).
   */
  private afterHandled(ctx: FrameContext, frame: InboundFrame): void {
    const { services } = this;
    const replay = ctx.replay;
    ctx.later(() => {
      if (frame.chatId && frame.event !== 'message.error') services.gate.open(frame.chatId);
      if (!services.core.listens('frame')) return;
      services.core.report('frame', frameEvent(frame, replay));
    });
  }

  /**
   * Records a frame that could not be handled, out of band (a bounded queue in the store, raw text included up to
   * 64 KiB), so an operator can look at it; the frame then counts as handled and its dseq is acked (§11.7).
   */
  private quarantineFrame(reason: string, event: string, raw: string, dseq: number | undefined, seq: number | undefined): Array<() => void> {
    const at = this.services.core.clock.now();
    this.quarantine.push(JSON.stringify({ at, event, dseq, seq, reason, raw: raw.length > QUARANTINE_RAW_MAX ? raw.slice(0, QUARANTINE_RAW_MAX) : raw }), at);
    return [
      () => {
        this.counters.quarantined++;
        this.services.core.report('quarantine', { event, dseq, seq, reason, at });
        this.services.core.warn(new HubError('FRAME_QUARANTINED', `a ${event || 'malformed'} frame could not be handled and was quarantined: ${reason}`, { event, dseq, seq }));
      },
    ];
  }
}
