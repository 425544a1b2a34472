/**
 * A node's typed readings over the last 24 hours, for the node page's chart. Kept in memory only and bounded twice:
 * one point per key per minute (a later value in the same minute replaces the earlier one, so a node reporting
 * every second costs what one reporting every minute does) and at most `MAX_KEYS` keys, so however chatty or
 * hostile a node is its history stays under MAX_KEYS × 1440 points. Booleans are charted as 0 and 1; strings are
 * not charted (the table shows the latest).
 */
import type { ReadingValue } from '../../../mesh-nodes/readings';

export const HISTORY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const HISTORY_STEP_MS = 60 * 1000;
const MAX_KEYS = 64;

/** `[time ms, value]`, oldest first. */
export type HistoryPoint = [number, number];

export class ReadingHistory {
  private readonly series = new Map<string, HistoryPoint[]>();

  add(values: Readonly<Record<string, ReadingValue>>, at: number): void {
    for (const [key, raw] of Object.entries(values)) {
      const value = typeof raw === 'boolean' ? (raw ? 1 : 0) : raw;
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      let points = this.series.get(key);
      if (!points) {
        if (this.series.size >= MAX_KEYS) continue;
        this.series.set(key, (points = []));
      }
      const last = points[points.length - 1];
      if (last && Math.floor(last[0] / HISTORY_STEP_MS) === Math.floor(at / HISTORY_STEP_MS)) {
        last[0] = at;
        last[1] = value;
      } else points.push([at, value]);
      this.trim(points, at);
    }
  }

  /** Every key's points within the window before `now`. */
  read(now: number): Record<string, HistoryPoint[]> {
    const out: Record<string, HistoryPoint[]> = {};
    for (const [key, points] of this.series) {
      this.trim(points, now);
      if (points.length > 0) out[key] = points.map((p) => [p[0], p[1]]);
    }
    return out;
  }

  private trim(points: HistoryPoint[], now: number): void {
    let drop = 0;
    while (drop < points.length && points[drop]![0] < now - HISTORY_WINDOW_MS) drop += 1;
    if (drop > 0) points.splice(0, drop);
  }
}
