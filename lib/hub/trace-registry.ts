/**
 * Uplinks that get no `message.ack` but can still be refused with `message.error` (streaming lifecycle frames,
 * `history.transit`), remembered by `trace_id` for a while so a refusal finds its sender. Bounded; the oldest go.
 */
import type { SendRejection } from './events';

export interface TracedUplink {
  event: string;
  chatId: string | undefined;
  messageId: string | undefined;
  onRejected?: (rejection: SendRejection) => void;
}

export class TraceRegistry {
  private readonly traces = new Map<string, TracedUplink>();

  constructor(private readonly capacity = 1000) {}

  remember(traceId: string, uplink: TracedUplink): void {
    this.traces.delete(traceId);
    this.traces.set(traceId, uplink);
    if (this.traces.size > this.capacity) this.traces.delete(this.traces.keys().next().value as string);
  }

  take(traceId: string): TracedUplink | undefined {
    const found = this.traces.get(traceId);
    if (found) this.traces.delete(traceId);
    return found;
  }
}
