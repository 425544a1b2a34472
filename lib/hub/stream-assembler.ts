/**
 * The consumer side of streaming (guide §8): one assembly per `message_id`, checking the `delta` invariant
 * (`text_prev + delta == text`) and the `sequence` numbering. A stream that breaks them is still shown (the
 * cumulative `text` is what the producer meant) but reported as not `consistent`. Bounded, idle streams expire.
 */
import type { Sender } from './envelope';
import type { StreamEvent } from './events';
import { joinText, parseFragments } from './fragments';
import { num, str, type JsonObject } from './json';

interface Assembly {
  chatId: string | undefined;
  mode: string;
  lastSequence: number;
  texts: string[];
  consistent: boolean;
  /** Joined after its `created` (we connected mid-stream): what came before cannot be checked. */
  lateJoin: boolean;
  touchedAt: number;
}

export interface StreamFrame {
  messageId: string;
  chatId: string | undefined;
  sender: Sender | undefined;
  originDeviceId: string | undefined;
  fromSelf: boolean;
  payload: JsonObject;
}

export function normalizeMode(value: unknown): string {
  const mode = str(value) ?? '';
  return mode === '' ? 'normal' : mode;
}

export class StreamAssembler {
  private readonly streams = new Map<string, Assembly>();

  constructor(
    private readonly now: () => number,
    private readonly maxStreams = 256,
    private readonly idleMs = 10 * 60_000,
  ) {}

  get size(): number {
    return this.streams.size;
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
      const previous = assembly.texts[i] ?? (assembly.lateJoin ? undefined : '');
      if (fragment.delta === undefined) assembly.consistent = false;
      else {
        delta += fragment.delta;
        if (previous !== undefined && previous + fragment.delta !== text) assembly.consistent = false;
      }
      assembly.texts[i] = text;
    });
    assembly.lateJoin = false;
    return this.event('add', f, assembly, fragments, sequence, delta);
  }

  end(f: StreamFrame, phase: 'done' | 'failed'): StreamEvent {
    const assembly = this.streams.get(f.messageId) ?? this.open(f, normalizeMode(f.payload.message_mode), true);
    this.streams.delete(f.messageId);
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
      consistent: true,
      lateJoin,
      touchedAt: this.now(),
    };
    this.streams.delete(f.messageId);
    this.streams.set(f.messageId, assembly);
    while (this.streams.size > this.maxStreams) this.streams.delete(this.streams.keys().next().value as string);
    return assembly;
  }

  private sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [id, a] of this.streams) if (a.touchedAt < cutoff) this.streams.delete(id);
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
    };
  }
}
