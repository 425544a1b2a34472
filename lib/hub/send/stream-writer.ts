/**
 * The producer side of streaming (guide §8.1–8.4, §8.7): one `message_id` for the whole stream, `sequence` from 0
 * on the first `message.add`, every text fragment carrying the cumulative `text` and the new `delta`, and always a
 * terminator (`done()` or `fail()`). `finalize()` follows a finished stream with a durable `message.reply` that
 * reuses the stream's id, so offline replay stores one row (the finalize-reply pattern).
 *
 * Lifecycle frames get no ack; they go out on the live connection or not at all (`NOT_CONNECTED`), and a refusal
 * arrives as `message.error` on `rejection`.
 */
import { EVENT, uplink, type Peer, type Uplink } from '../envelope';
import { HubError } from '../errors';
import type { SendHandle, SendRejection } from '../events';
import type { JsonObject } from '../json';
import { refusedSend } from './send-handle';
import type { SendTag } from '../send-tag';

export interface StreamHost {
  now(): number;
  traceId(): string;
  /** Sends a lifecycle frame now; throws NOT_CONNECTED when there is no live connection. */
  sendLifecycle(frame: Uplink, onRejected: (r: SendRejection) => void): void;
  /** The durable finalize reply (through the outbox). */
  finalize(input: FinalizeInput & { chatId: string; messageId: string; to: Peer | undefined }): SendHandle;
}

export interface FinalizeInput {
  text?: string;
  fragments?: JsonObject[];
  mode?: string;
  mentions?: unknown[];
  replyTo?: { messageId: string; preview?: { id?: string; nickName?: string; fragments?: JsonObject[] } };
  /** As `SendInput.tag`: kept with the finalize reply in the outbox and echoed with its answer. */
  tag?: SendTag;
}

export type StreamPhase = 'open' | 'done' | 'failed';

const MUTATION_POLICY = 'append_text_only';

export class StreamWriter {
  private seq = -1;
  private cumulative = '';
  private phaseValue: StreamPhase = 'open';
  private readonly startedAt: number;
  /** Set when the hub refused one of the stream's frames. */
  rejection: SendRejection | undefined;

  constructor(
    private readonly host: StreamHost,
    readonly chatId: string,
    readonly messageId: string,
    readonly mode: string,
    private readonly to: Peer | undefined,
  ) {
    this.startedAt = host.now();
  }

  get phase(): StreamPhase {
    return this.phaseValue;
  }

  /** The last `sequence` sent (-1 before the first `append`). */
  get sequence(): number {
    return this.seq;
  }

  get text(): string {
    return this.cumulative;
  }

  /** Sends `message.created`. Called once by `HubClient.openStream`. */
  open(): void {
    this.send(EVENT.created, { message_id: this.messageId, message_mode: this.mode });
  }

  /** Appends `delta` to the text: one `message.add` with the cumulative text and the delta. */
  append(delta: string): void {
    this.checkOpen();
    if (typeof delta !== 'string') throw new HubError('BAD_ARGUMENT', 'a stream delta must be a string');
    const sequence = this.seq + 1;
    const text = this.cumulative + delta;
    const now = this.host.now();
    this.send(EVENT.add, {
      message_id: this.messageId,
      sequence,
      mutation: { type: 'append', target_fragment_index: 0 },
      fragments: [{ kind: 'text', text, delta }],
      streaming: { status: 'streaming', sequence, mutation_policy: MUTATION_POLICY, started_at: this.startedAt, completed_at: null },
      added_at: now,
    });
    this.seq = sequence;
    this.cumulative = text;
  }

  /** Ends the stream successfully: `message.done` with the final text and no delta. */
  done(): void {
    this.end('done');
  }

  /** Abandons the stream: `message.failed` (no merged reply will be materialized). */
  fail(): void {
    this.end('failed');
  }

  /** After `done()`: a polished `message.reply` reusing this stream's `message_id` (durable, acked). */
  finalize(input: FinalizeInput = {}): SendHandle {
    if (this.phaseValue === 'open') return refusedSend(new HubError('STREAM_CLOSED', 'finalize() follows done(); end the stream first'), this.messageId);
    const body = input.text === undefined && input.fragments === undefined ? { ...input, text: this.cumulative } : input;
    return this.host.finalize({ ...body, chatId: this.chatId, messageId: this.messageId, to: this.to });
  }

  private end(status: 'done' | 'failed'): void {
    this.checkOpen();
    const now = this.host.now();
    this.phaseValue = status;
    this.send(status === 'done' ? EVENT.done : EVENT.failed, {
      message_id: this.messageId,
      fragments: [{ kind: 'text', text: this.cumulative }],
      streaming: { status, sequence: Math.max(0, this.seq), mutation_policy: MUTATION_POLICY, started_at: this.startedAt, completed_at: now },
      completed_at: now,
    });
  }

  private checkOpen(): void {
    if (this.phaseValue !== 'open') throw new HubError('STREAM_CLOSED', `stream ${this.messageId} already ended (${this.phaseValue})`);
  }

  private send(event: string, payload: JsonObject): void {
    const frame = uplink(event, this.host.traceId(), this.host.now(), payload, { chat_id: this.chatId, to: this.to });
    this.host.sendLifecycle(frame, (r) => {
      this.rejection = r;
    });
  }
}
