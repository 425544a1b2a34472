/**
 * Counters and gauges of the gateway, one registry per process, rendered by hand in the Prometheus text exposition
 * format (version 0.0.4) for `/metrics` and as a plain object for the MQTT health topic. No client library: the format
 * is a few lines and the registry must stay allocation-free on the hot path (a counter is a number in a Map).
 */

export type Labels = Readonly<Record<string, string>>;

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  series: Map<string, { labels: Labels; value: number }>;
  /** Gauges read at render time (queue depths, RSS) instead of being pushed on every change. */
  collect?: () => Array<{ labels: Labels; value: number }> | number;
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function labelKey(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  // The hot path (one label, a counter per radio): no sort, no array.
  if (keys.length === 1) return `${keys[0]}=${labels[keys[0]!]}`;
  keys.sort();
  return keys.map((k) => `${k}=${labels[k]}`).join('\u0000');
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function renderLabels(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k] ?? '')}"`).join(',')}}`;
}

function renderValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export class Counter {
  constructor(private readonly family: Family) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    const s = this.family.series.get(key);
    if (s) s.value += by;
    else this.family.series.set(key, { labels: { ...labels }, value: by });
  }

  get(labels: Labels = {}): number {
    return this.family.series.get(labelKey(labels))?.value ?? 0;
  }

  /** The sum over every label set (for totals such as messages/s). */
  total(): number {
    let t = 0;
    for (const s of this.family.series.values()) t += s.value;
    return t;
  }
}

export class Gauge {
  constructor(private readonly family: Family) {}

  set(value: number, labels: Labels = {}): void {
    this.family.series.set(labelKey(labels), { labels: { ...labels }, value });
  }

  /** Drops a label set (a radio that was removed) so that it stops being exported. */
  remove(labels: Labels): void {
    this.family.series.delete(labelKey(labels));
  }

  get(labels: Labels = {}): number {
    return this.family.series.get(labelKey(labels))?.value ?? 0;
  }
}

export class Metrics {
  private readonly families = new Map<string, Family>();

  counter(name: string, help: string): Counter {
    return new Counter(this.family(name, help, 'counter'));
  }

  gauge(name: string, help: string, collect?: Family['collect']): Gauge {
    const f = this.family(name, help, 'gauge');
    if (collect) f.collect = collect;
    return new Gauge(f);
  }

  /** The Prometheus text format: HELP and TYPE per family, one line per label set, families in registration order. */
  renderPrometheus(): string {
    const out: string[] = [];
    for (const f of this.families.values()) {
      out.push(`# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      out.push(`# TYPE ${f.name} ${f.type}`);
      for (const { labels, value } of this.read(f)) out.push(`${f.name}${renderLabels(labels)} ${renderValue(value)}`);
    }
    return out.join('\n') + '\n';
  }

  /** `{ name: value }` for unlabelled series and `{ name: { "k=v,…": value } }` for labelled ones. */
  snapshot(): Record<string, number | Record<string, number>> {
    const out: Record<string, number | Record<string, number>> = {};
    for (const f of this.families.values()) {
      const rows = this.read(f);
      if (rows.length === 1 && Object.keys(rows[0]!.labels).length === 0) out[f.name] = rows[0]!.value;
      else {
        const byLabel: Record<string, number> = {};
        for (const r of rows) byLabel[Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(',')] = r.value;
        out[f.name] = byLabel;
      }
    }
    return out;
  }

  private read(f: Family): Array<{ labels: Labels; value: number }> {
    if (f.collect) {
      const c = f.collect();
      if (typeof c === 'number') return [{ labels: {}, value: c }];
      return c;
    }
    if (f.series.size === 0 && f.type === 'counter') return [{ labels: {}, value: 0 }];
    return [...f.series.values()];
  }

  private family(name: string, help: string, type: Family['type']): Family {
    if (!NAME_RE.test(name)) throw new Error(`metric name '${name}' is not a valid Prometheus name`);
    const existing = this.families.get(name);
    if (existing) {
      if (existing.type !== type) throw new Error(`metric '${name}' registered as ${existing.type} and ${type}`);
      return existing;
    }
    const f: Family = { name, help, type, series: new Map() };
    this.families.set(name, f);
    return f;
  }
}
