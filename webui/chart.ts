/**
 * A series over a time window (a reading's last 24 hours, a rate's last 15 minutes) as a plain SVG line chart: time across, value up, the range's ends and the latest value
 * written beside it. Built with DOM calls (no markup strings), so a key that came from the configuration or a
 * value that came from the mesh can only ever be text.
 */
const SVG = 'http://www.w3.org/2000/svg';
const PAD = { left: 48, right: 12, top: 12, bottom: 22 };
/** Drawn at its own size (not scaled by CSS), so the labels keep the page's text size. */
export interface ChartSize {
  width: number;
  height: number;
}
const LARGE: ChartSize = { width: 640, height: 160 };

function node<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function label(v: number): string {
  return String(Math.round(v * 100) / 100);
}

export interface ChartWindow {
  ms: number;
  /** How the left edge is named: `24 h ago`. */
  label: string;
}

export const DAY: ChartWindow = { ms: 24 * 3600 * 1000, label: '24 h ago' };

export interface ChartOptions {
  window?: ChartWindow;
  size?: ChartSize;
  /** The value axis starts at zero (rates: a small change must not look like a cliff). */
  fromZero?: boolean;
}

/** `points` are `[time ms, value]`, oldest first (at least one); `now` closes the window on the right. */
export function lineChart(key: string, points: Array<[number, number]>, now: number, options: ChartOptions = {}): SVGSVGElement {
  const window = options.window ?? DAY;
  const { width, height } = options.size ?? LARGE;
  const svg = node('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, width: width, height: height, role: 'img' });
  svg.dataset.key = key;
  svg.append(node('title', {}, `${key}, since ${window.label}`));
  const t0 = now - window.ms;
  const values = points.map((p) => p[1]);
  let lo = options.fromZero ? Math.min(0, ...values) : Math.min(...values);
  let hi = Math.max(...values);
  // A flat series still needs a band to sit in.
  if (hi - lo < 1e-9) {
    lo -= 1;
    hi += 1;
  }
  // Counts and rates are never negative: the band does not reach below zero for them.
  if (Math.min(...values) >= 0) lo = Math.max(lo, 0);
  const x = (t: number): number => PAD.left + ((t - t0) / (now - t0)) * (width - PAD.left - PAD.right);
  const y = (v: number): number => height - PAD.bottom - ((v - lo) / (hi - lo)) * (height - PAD.top - PAD.bottom);
  svg.append(
    node('line', { class: 'axis', x1: PAD.left, y1: height - PAD.bottom, x2: width - PAD.right, y2: height - PAD.bottom }),
    node('line', { class: 'axis', x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: height - PAD.bottom }),
    node('text', { x: 2, y: PAD.top + 4 }, label(hi)),
    node('text', { x: 2, y: height - PAD.bottom }, label(lo)),
    node('text', { x: PAD.left, y: height - 6 }, window.label),
    node('text', { x: width - PAD.right - 24, y: height - 6 }, 'now'),
  );
  const coords = points.map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`);
  svg.append(node('polyline', { class: 'line', points: coords.join(' ') }));
  for (const p of points.slice(-1)) {
    svg.append(node('circle', { cx: x(p[0]).toFixed(1), cy: y(p[1]).toFixed(1), r: 3, fill: '#2667b0' }));
    // Written away from the chart's nearer edge, so the label is never cut off.
    const right = x(p[0]) > width / 2;
    const at = { x: (x(p[0]) + (right ? -6 : 6)).toFixed(1), y: Math.max(y(p[1]) - 6, PAD.top + 8).toFixed(1), 'text-anchor': right ? 'end' : 'start' };
    svg.append(node('text', { class: 'latest', ...at }, `${key} ${label(p[1])}`));
  }
  return svg;
}
