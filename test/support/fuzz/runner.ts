/**
 * Runs a fuzz target and classifies every input: accepted, rejected with the decoder's own error type (counted by
 * code), or a failure. A failure is a foreign exception (anything but the decoder's own error type, e.g. a
 * `TypeError` or `RangeError`) or a broken invariant (a bound exceeded, an accepted input that does not re-encode).
 * Each input is timed on the wall clock; the slowest is kept, and any input slower than `hangMs` is flagged.
 *
 * The mocha tests run a target at their CI count and assert that nothing failed; `bench/fuzz.ts` runs it at 10^6
 * and prints the report. Both use this one loop, so what CI checks is what the long run checks.
 */
import { FuzzRng, hexPreview } from './engine';

/** What a session says about one input it handled without throwing. */
export type Verdict = { accepted: true } | { accepted: false; code: string };

/** Thrown by a session when a property of an accepted input or of its long-lived state fails. */
export class FuzzInvariantError extends Error {
  override readonly name = 'FuzzInvariantError';
}

export interface FuzzSession<I> {
  /** The next input, drawn from the session's generator. */
  next(): I;
  /**
   * Hand one input to the decoder. Returns the verdict, or throws: the decoder's own error is a rejection,
   * anything else (a `FuzzInvariantError` included) is a failure.
   */
  feed(input: I): Verdict;
  /** The bytes shown for an input in a report (a hex dump is cut to a few dozen bytes). */
  show(input: I): Uint8Array | string;
  /** Figures the target counts besides the verdicts (completed assemblies, distinct reasons…). */
  figures?(): Record<string, number>;
}

export interface FuzzTarget<I = Uint8Array> {
  readonly name: string;
  readonly about: string;
  /** The code of an error that is the decoder's own type, or undefined for a foreign one. */
  own(err: unknown): string | undefined;
  /** Builds the corpus and any long-lived state (a reassembler) for one run. */
  start(rng: FuzzRng): FuzzSession<I>;
}

export interface FuzzFailure {
  index: number;
  kind: 'foreign' | 'invariant';
  error: string;
  input: string;
}

export interface FuzzReport {
  target: string;
  seed: number;
  inputs: number;
  accepted: number;
  rejected: number;
  /** Rejections by code. */
  codes: Record<string, number>;
  foreign: number;
  invariant: number;
  /** The first few failures, in input order. */
  failures: FuzzFailure[];
  slowest: { index: number; ms: number; input: string };
  /** Inputs slower than `hangMs`. */
  hangs: number;
  hangMs: number;
  elapsedMs: number;
  perSecond: number;
  /** Highest `heapUsed` sampled, above the value at the start, in bytes. */
  heapPeakGrowth: number;
  figures: Record<string, number>;
}

export interface RunOptions {
  count: number;
  seed: number;
  /** An input slower than this is a hang in the report (default 1000 ms). */
  hangMs?: number;
  /** How many failures keep their input and error (default 5). */
  keepFailures?: number;
  /** Called before every input with its index; the CLI's watchdog reads it. */
  onInput?: (index: number) => void;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${err.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${err.message}`.slice(0, 300);
  }
  return `thrown ${typeof err}: ${String(err)}`.slice(0, 300);
}

function shown(value: Uint8Array | string): string {
  return typeof value === 'string' ? value : hexPreview(value);
}

const HEAP_SAMPLE_EVERY = 2000;

export function runFuzz<I>(target: FuzzTarget<I>, options: RunOptions): FuzzReport {
  const hangMs = options.hangMs ?? 1000;
  const keep = options.keepFailures ?? 5;
  const session = target.start(new FuzzRng(options.seed));
  const report: FuzzReport = {
    target: target.name,
    seed: options.seed,
    inputs: 0,
    accepted: 0,
    rejected: 0,
    codes: {},
    foreign: 0,
    invariant: 0,
    failures: [],
    slowest: { index: -1, ms: 0, input: '' },
    hangs: 0,
    hangMs,
    elapsedMs: 0,
    perSecond: 0,
    heapPeakGrowth: 0,
    figures: {},
  };
  const heapStart = process.memoryUsage().heapUsed;
  let heapPeak = heapStart;
  const started = process.hrtime.bigint();
  for (let i = 0; i < options.count; i++) {
    options.onInput?.(i);
    const input = session.next();
    const t0 = process.hrtime.bigint();
    try {
      const verdict = session.feed(input);
      if (verdict.accepted) report.accepted++;
      else {
        report.rejected++;
        report.codes[verdict.code] = (report.codes[verdict.code] ?? 0) + 1;
      }
    } catch (err) {
      const code = err instanceof FuzzInvariantError ? undefined : target.own(err);
      if (code !== undefined) {
        report.rejected++;
        report.codes[code] = (report.codes[code] ?? 0) + 1;
      } else {
        const kind = err instanceof FuzzInvariantError ? 'invariant' : 'foreign';
        report[kind]++;
        if (report.failures.length < keep) report.failures.push({ index: i, kind, error: describe(err), input: shown(session.show(input)) });
      }
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ms > report.slowest.ms) report.slowest = { index: i, ms, input: shown(session.show(input)) };
    if (ms > hangMs) report.hangs++;
    report.inputs++;
    if (i % HEAP_SAMPLE_EVERY === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  report.elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  report.perSecond = report.inputs / Math.max(report.elapsedMs / 1000, 1e-9);
  report.heapPeakGrowth = heapPeak - heapStart;
  report.figures = session.figures?.() ?? {};
  return report;
}

/** The message a test fails with: every kept failure, with the seed and index to replay it. */
export function failureSummary(report: FuzzReport): string {
  const lines = [`${report.target} seed ${report.seed}: ${report.foreign} foreign exception(s), ${report.invariant} broken invariant(s)`];
  for (const f of report.failures) lines.push(`  #${f.index} ${f.kind}: ${f.error}\n    input ${f.input}`);
  lines.push(`  replay: npm run fuzz -- --target ${report.target} --seed ${report.seed} --count ${(report.failures[0]?.index ?? 0) + 1}`);
  return lines.join('\n');
}

/** The whole report as the CLI prints it. */
export function formatReport(report: FuzzReport): string {
  const pct = (n: number): string => `${((100 * n) / Math.max(report.inputs, 1)).toFixed(1)} %`;
  const topCodes = Object.entries(report.codes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  const lines = [
    `${report.target}  (seed ${report.seed})`,
    `  inputs            ${report.inputs}`,
    `  accepted          ${report.accepted} (${pct(report.accepted)})`,
    `  own-error reject  ${report.rejected} (${pct(report.rejected)}), ${Object.keys(report.codes).length} codes${topCodes ? `: ${topCodes}` : ''}`,
    `  foreign           ${report.foreign}`,
    `  broken invariant  ${report.invariant}`,
  ];
  for (const f of report.failures) lines.push(`    #${f.index} ${f.kind}: ${f.error}`, `      input ${f.input}`);
  if (report.failures.length > 0) lines.push(`    replay: npm run fuzz -- --target ${report.target} --seed ${report.seed} --count ${report.failures[0].index + 1}`);
  lines.push(
    `  slowest input     ${report.slowest.ms.toFixed(2)} ms (#${report.slowest.index}) ${report.slowest.input}`,
    `  over ${report.hangMs} ms      ${report.hangs}${report.hangs > 0 ? '  <-- HANG' : ''}`,
    `  rate              ${Math.round(report.perSecond)} inputs/s (${(report.elapsedMs / 1000).toFixed(1)} s)`,
    `  heap peak growth  ${(report.heapPeakGrowth / 1048576).toFixed(1)} MiB`,
  );
  const figures = Object.entries(report.figures);
  if (figures.length > 0) lines.push(`  figures           ${figures.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  return lines.join('\n');
}
