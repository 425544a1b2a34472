/**
 * The consumer side of streaming (guide §8): one assembly per `message_id`, checking the `delta` invariant
 * (`text_prev + delta == text`) and the `sequence` numbering. A stream that breaks them is still shown (the
 * cumulative `text` is what the producer meant) but reported as not `consistent`. Bounded, idle streams expire.
 *
 * Memory is bounded three ways: in streams (`maxStreams`), in characters held per stream (`maxStreamChars`) and in
 * characters held by all streams together (`maxTotalChars`). Each `add` carries the whole text so far, so a few
 * hundred long streams would otherwise hold gigabytes. A stream over a bound is cut: its text is let go at once, a
 * small marker stays so that its later frames cannot grow it again, and the cut is reported once as a `HubError`
 * (`STREAM_TOO_LARGE` / `STREAMS_OVER_BUDGET`). Its frames still reach the listener, flagged `cut` and not
 * `consistent` (nothing is left to check them against).
 */
import { DEFAULT_STREAM_MAX_CHARS, DEFAULT_STREAMS_MAX_CHARS } from '../options';
import type { Sender } from '../envelope';
import { HubError } from '../errors';
import type { StreamCut, StreamEvent } from '../events';
import { joinText, parseFragments } from '../fragments';
import { num, str, type JsonObject } from '../json';

interface Assembly {
  chatId: string | undefined;
  mode: string;
  lastSequence: number;
  texts: string[];
  /** Characters of `texts` (what the bounds count). */
  chars: number;
  consistent: boolean;
  /** Joined after its `created` (we connected mid-stream): what came before cannot be checked. */
  lateJoin: boolean;
  touchedAt: number;
  /** Set once the stream went over a bound; it then holds no text. */
  cut: StreamCut | undefined;
}

export interface StreamFrame {
  messageId: string;
  chatId: string | undefined;
  sender: Sender | undefined;
  originDeviceId: string | undefined;
  fromSelf: boolean;
  payload: JsonObject;
}

export interface StreamBounds {
  /** Streams followed at once (default 256); past it the least recently opened is forgotten. */
  maxStreams?: number;
  /** A stream not touched for this long is forgotten (default 10 min). */
  idleMs?: number;
  /** Characters one stream may hold (default 1 Mi); past it the stream is cut (`STREAM_TOO_LARGE`). */
  maxStreamChars?: number;
  /** Characters all streams may hold together (default 8 Mi); past it the largest are cut (`STREAMS_OVER_BUDGET`). */
  maxTotalChars?: number;
}


export function normalizeMode(value: unknown): string {
  const mode = str(value) ?? '';
  return mode === '' ? 'normal' : mode;
}

export class StreamAssembler {
  private readonly streams = new Map<string, Assembly>();
  private readonly maxStreams: number;
  private readonly idleMs: number;
  private readonly maxStreamChars: number;
  private readonly maxTotalChars: number;
  private total = 0;
  private cuts: HubError[] = [];

  constructor(
    private readonly now: () => number,
    bounds: StreamBounds = {},
  ) {
    this.maxStreams = bounds.maxStreams ?? 256;
    this.idleMs = bounds.idleMs ?? 10 * 60_000;
    this.maxStreamChars = bounds.maxStreamChars ?? DEFAULT_STREAM_MAX_CHARS;
    this.maxTotalChars = bounds.maxTotalChars ?? DEFAULT_STREAMS_MAX_CHARS;
  }

  get size(): number {
    return this.streams.size;
  }

  /** Characters of text held by all streams. */
  get heldChars(): number {
    return this.total;
  }

  /** The cuts made since the last call, oldest first (the caller reports them). */
  takeCuts(): HubError[] {
    const cuts = this.cuts;
    this.cuts = [];
    return cuts;
  }

  created(f: StreamFrame): StreamEvent {
    const assembly = this.open(f, normalizeMode(f.payload.message_mode));
    return this.event('created', f, assembly, [], undefined, undefined);
  }

  add(f: StreamFrame): StreamEvent {
    const assembly = this.streams.get(f.messageId) ?? this.open(f, normalizeMode(f.payload.message_mode), true);
    assembly.touchedAt = this.now();
    const sequence = num(f.payload.sequence);
    if (sequence === undefined || (!assembly.lateJoin && sequence !== assembly.lastSequence + 1)) assembly.consistent = false;
    if (sequence !== undefined) assembly.lastSequence = sequence;
    const { fragments } = parseFragments(f.payload.fragments);
    let delta = '';
    fragments.forEach((fragment, i) => {
      if (fragment.kind !== 'text') return;
      const text = fragment.text ?? '';
      if (fragment.delta !== undefined) delta += fragment.delta;
      if (assembly.cut) return;
      const previous = assembly.texts[i] ?? (assembly.lateJoin ? undefined : '');
      if (fragment.delta === undefined) assembly.consistent = false;
      else if (previous !== undefined && previous + fragment.delta !== text) assembly.consistent = false;
      this.hold(assembly, text.length - (assembly.texts[i]?.length ?? 0));
      assembly.texts[i] = text;
    });
    assembly.lateJoin = false;
    if (!assembly.cut && assembly.chars > this.maxStreamChars) {
      this.cut(f.messageId, assembly, 'STREAM_TOO_LARGE', `stream ${f.messageId} holds ${assembly.chars} characters, over the ${this.maxStreamChars} allowed for one stream`);
    }
    this.enforceTotal();
    return this.event('add', f, assembly, fragments, sequence, delta);
  }

  end(f: StreamFrame, phase: 'done' | 'failed'): StreamEvent {
    const assembly = this.streams.get(f.messageId) ?? this.open(f, normalizeMode(f.payload.message_mode), true);
    this.drop(f.messageId);
    const { fragments } = parseFragments(f.payload.fragments);
    const streaming = f.payload.streaming as JsonObject | undefined;
    const sequence = num(streaming?.sequence);
    return this.event(phase, f, assembly, fragments, sequence, undefined);
  }

  private open(f: StreamFrame, mode: string, lateJoin = false): Assembly {
    this.sweep();
    const assembly: Assembly = {
      chatId: f.chatId,
      mode,
      lastSequence: -1,
      texts: [],
      chars: 0,
      consistent: true,
      lateJoin,
      touchedAt: this.now(),
      cut: undefined,
    };
    this.drop(f.messageId);
    this.streams.set(f.messageId, assembly);
    while (this.streams.size > this.maxStreams) this.drop(this.streams.keys().next().value as string);
    return assembly;
  }

  private hold(a: Assembly, chars: number): void {
    a.chars += chars;
    this.total += chars;
  }

  private drop(id: string): void {
    const a = this.streams.get(id);
    if (!a) return;
    this.total -= a.chars;
    this.streams.delete(id);
  }

  private cut(id: string, a: Assembly, code: StreamCut, message: string): void {
    this.cuts.push(new HubError(code, message, { messageId: id, chatId: a.chatId, chars: a.chars, limit: code === 'STREAM_TOO_LARGE' ? this.maxStreamChars : this.maxTotalChars }));
    this.hold(a, -a.chars);
    a.texts = [];
    a.cut = code;
    a.consistent = false;
  }

  /** Over the total: cut the largest streams first, which frees the most with the fewest cuts. */
  private enforceTotal(): void {
    while (this.total > this.maxTotalChars) {
      let largestId: string | undefined;
      let largest: Assembly | undefined;
      for (const [id, a] of this.streams) if (!largest || a.chars > largest.chars) [largestId, largest] = [id, a];
      if (!largest || largestId === undefined || largest.chars === 0) return;
      this.cut(largestId, largest, 'STREAMS_OVER_BUDGET', `streams hold ${this.total} characters together, over the ${this.maxTotalChars} allowed; stream ${largestId} (${largest.chars}) was cut`);
    }
  }

  private sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [id, a] of this.streams) if (a.touchedAt < cutoff) this.drop(id);
  }

  private event(
    phase: StreamEvent['phase'],
    f: StreamFrame,
    a: Assembly,
    fragments: StreamEvent['fragments'],
    sequence: number | undefined,
    delta: string | undefined,
  ): StreamEvent {
    return {
      phase,
      messageId: f.messageId,
      chatId: f.chatId ?? a.chatId,
      sender: f.sender,
      originDeviceId: f.originDeviceId,
      fromSelf: f.fromSelf,
      mode: a.mode,
      isNormalMode: a.mode === 'normal',
      sequence,
      fragments,
      text: joinText(fragments),
      delta,
      consistent: a.consistent,
      cut: a.cut,
    };
  }
}
