/**
 * The gateway page's rate charts: the last 15 minutes of messages in, messages sent, frames relayed, frames rejected
 * and MQTT publishes, each per second. Sampled every `STEP_MS` on the gateway's clock from the metrics' running
 * totals (so the rates agree with `/metrics`), kept in memory and bounded to `KEEP` samples; a read adds the rate
 * since the last sample, so a page opened just after start already has a point to show.
 */
import type { Clock, TimerHandle } from '../../../../lib/clock';

export const RATE_STEP_MS = 10_000;
const KEEP = 90;

/** Chart name → the metric whose running total it is (summed over labels). */
export const RATES: Readonly<Record<string, string>> = {
  messages_in: 'clawling_gateway_messages_received_total',
  messages_sent: 'clawling_gateway_messages_sent_total',
  relayed: 'clawling_gateway_forwarded_total',
  rejected: 'clawling_gateway_frames_rejected_total',
  mqtt_published: 'clawling_gateway_mqtt_published_total',
};

type Totals = Record<string, number | Record<string, number>>;

function total(value: number | Record<string, number> | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  return Object.values(value).reduce((a, b) => a + b, 0);
}

interface Sample {
  at: number;
  totals: Record<string, number>;
}

export class RateHistory {
  private readonly samples: Sample[] = [];
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly readTotals: () => Totals,
  ) {}

  start(): void {
    this.sample();
  }

  stop(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Per chart, `[time ms, per second]` over each step, oldest first, ending with the step in progress. */
  read(): Record<string, Array<[number, number]>> {
    const now = this.take();
    const all = [...this.samples];
    const last = all[all.length - 1];
    if (last && now.at > last.at) all.push(now);
    const out: Record<string, Array<[number, number]>> = {};
    for (const name of Object.keys(RATES)) {
      const points: Array<[number, number]> = [];
      for (let i = 1; i < all.length; i++) {
        const a = all[i - 1]!;
        const b = all[i]!;
        points.push([b.at, Math.round((Math.max(0, b.totals[name]! - a.totals[name]!) / ((b.at - a.at) / 1000)) * 100) / 100]);
      }
      out[name] = points;
    }
    return out;
  }

  private take(): Sample {
    const counters = this.readTotals();
    const totals: Record<string, number> = {};
    for (const [name, metric] of Object.entries(RATES)) totals[name] = total(counters[metric]);
    return { at: this.clock.now(), totals };
  }

  private sample(): void {
    this.samples.push(this.take());
    if (this.samples.length > KEEP + 1) this.samples.shift();
    this.timer = this.clock.setTimeout(() => this.sample(), RATE_STEP_MS);
  }
}
