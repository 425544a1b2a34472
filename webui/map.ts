/**
 * The map: this gateway, the site's other gateways and every node it hears, placed by webui/map-layout.ts, each
 * link labelled with its radio's RSSI (or the relay and hop count) and how fresh it is, each node with its name,
 * whether it is connected, its verified-sender share and the hop counts seen. A node is a link to its page. Zoom
 * (buttons or wheel), drag to pan, search (matching nodes stand out) and a radio filter keep 300 nodes usable; the graph is
 * fetched every few seconds, not per message, so a busy mesh does not redraw it continuously.
 */
import { age, byId, getJson } from './dom.js';
import { radialLayout, type Point } from './map-layout.js';

interface MapNode {
  id: string;
  kind: 'gateway' | 'site-gateway' | 'node';
  label: string;
  address?: string;
  connected: boolean;
  radios: string[];
  verified_share?: number;
  hops_seen?: number[];
}

interface MapLink {
  from: string;
  to: string;
  radio: string;
  hop_count: number;
  rssi?: number;
  at: number;
}

interface MapDoc {
  now: number;
  radios: string[];
  nodes: MapNode[];
  links: MapLink[];
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const REFRESH_MS = 5000;
/** Past this many nodes, link labels move into their tooltips: 300 labels would hide the picture. */
const LABELLED_LINKS_UP_TO = 60;
const svg = byId('map') as unknown as SVGSVGElement;
const state = byId<HTMLElement>('state');
const search = byId<HTMLInputElement>('search');
const radioFilter = byId<HTMLSelectElement>('radio-filter');
let doc: MapDoc | undefined;
let zoom = 1;
/** How far the user dragged the picture, in map units (kept across refreshes, cleared by Fit). */
let pan = { x: 0, y: 0 };

function svgEl<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function shortLabel(n: MapNode): string {
  if (n.kind !== 'node' || n.label !== n.address) return n.label.length > 24 ? `${n.label.slice(0, 23)}…` : n.label;
  return `${n.label.slice(0, 8)}…${n.label.slice(-4)}`;
}

function nodeTitle(n: MapNode): string {
  const parts = [n.label];
  if (n.address && n.address !== n.label) parts.push(n.address);
  parts.push(n.connected ? 'connected' : 'not heard lately');
  if (n.radios.length) parts.push(`radios ${n.radios.join(', ')}`);
  if (n.verified_share !== undefined) parts.push(`sender verified ${Math.round(n.verified_share * 100)} %`);
  if (n.hops_seen?.length) parts.push(`hops seen ${n.hops_seen.join(', ')}`);
  return parts.join('\n');
}

function linkLabel(l: MapLink, now: number): string {
  const how = l.hop_count === 0 ? (l.rssi !== undefined ? `RSSI ${l.rssi}` : l.radio) : `${l.hop_count} hop${l.hop_count === 1 ? '' : 's'}`;
  return `${how} · ${age(l.at, now)}`;
}

function setViewBox(points: Point[]): void {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const pad = 90;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  const w = Math.max(...xs) + pad - minX;
  const h = Math.max(...ys) + pad - minY;
  const cx = minX + w / 2 - pan.x;
  const cy = minY + h / 2 - pan.y;
  svg.setAttribute('viewBox', `${cx - w / 2 / zoom} ${cy - h / 2 / zoom} ${w / zoom} ${h / zoom}`);
}

function render(): void {
  if (!doc) return;
  const d = doc;
  const radio = radioFilter.value;
  const q = search.value.trim().toLowerCase();
  const nodes = d.nodes.filter((n) => n.kind !== 'node' || !radio || n.radios.includes(radio));
  const shown = new Set(nodes.map((n) => n.id));
  const links = d.links.filter((l) => shown.has(l.from) && shown.has(l.to) && (!radio || l.radio === radio));
  const at = radialLayout({ root: 'gateway', nodes: nodes.map((n) => n.id), links });
  const linkLayer = svgEl('g', { class: 'links' });
  for (const l of links) {
    const a = at.get(l.from)!;
    const b = at.get(l.to)!;
    const g = svgEl('g', { class: `link${l.hop_count === 0 ? '' : ' relayed'}`, 'data-from': l.from, 'data-to': l.to });
    const label = linkLabel(l, d.now);
    g.append(svgEl('title', {}, `${l.radio}: ${label}`), svgEl('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y }));
    // Nearer the outer end than the middle, where the gateway's own label would cover it.
    if (nodes.length <= LABELLED_LINKS_UP_TO) g.append(svgEl('text', { x: (a.x + (b.x - a.x) * 0.6).toFixed(1), y: (a.y + (b.y - a.y) * 0.6 - 4).toFixed(1), 'text-anchor': 'middle', class: 'link-label' }, label));
    linkLayer.append(g);
  }
  const nodeLayer = svgEl('g', { class: 'nodes' });
  for (const n of nodes) {
    const p = at.get(n.id)!;
    const matched = q !== '' && (n.label.toLowerCase().includes(q) || (n.address ?? '').toLowerCase().includes(q));
    const cls = ['map-node', n.kind, n.connected ? 'connected' : 'stale', matched ? 'match' : q ? 'dim' : ''].filter(Boolean).join(' ');
    const holder = n.kind === 'node' ? svgEl('a', { href: `node?address=${encodeURIComponent(n.id)}` }) : svgEl('g', {});
    holder.setAttribute('class', cls);
    holder.setAttribute('data-id', n.id);
    const mark = n.kind === 'node' ? svgEl('circle', { cx: p.x, cy: p.y, r: 9 }) : svgEl('rect', { x: p.x - 12, y: p.y - 12, width: 24, height: 24 });
    holder.append(svgEl('title', {}, nodeTitle(n)), mark, svgEl('text', { x: p.x, y: p.y + 24, 'text-anchor': 'middle' }, shortLabel(n)));
    nodeLayer.append(holder);
  }
  svg.replaceChildren(linkLayer, nodeLayer);
  setViewBox([...at.values()]);
  state.textContent = `${nodes.length - 1} node(s) shown of ${d.nodes.length - 1}, ${links.length} link(s)`;
}

function setRadios(radios: string[]): void {
  const have = [...radioFilter.options].map((o) => o.value).filter(Boolean);
  if (have.join('\n') === radios.join('\n')) return;
  const keep = radioFilter.value;
  const all = document.createElement('option');
  all.value = '';
  all.textContent = 'all radios';
  radioFilter.replaceChildren(
    all,
    ...radios.map((r) => {
      const o = document.createElement('option');
      o.value = r;
      o.textContent = r;
      return o;
    }),
  );
  radioFilter.value = radios.includes(keep) ? keep : '';
}

async function refresh(): Promise<void> {
  const r = await getJson<MapDoc>('../api/map');
  if (!r.ok) {
    state.textContent = `${r.error.code}: ${r.error.message}`;
    return;
  }
  doc = r.body;
  setRadios(doc.radios);
  render();
}

function zoomBy(factor: number): void {
  zoom = Math.min(20, Math.max(0.2, zoom * factor));
  render();
}

byId('zoom-in').addEventListener('click', () => zoomBy(1.5));
byId('zoom-out').addEventListener('click', () => zoomBy(1 / 1.5));
byId('zoom-reset').addEventListener('click', () => {
  zoom = 1;
  pan = { x: 0, y: 0 };
  render();
});
svg.addEventListener(
  'wheel',
  (ev) => {
    ev.preventDefault();
    zoomBy(ev.deltaY < 0 ? 1.2 : 1 / 1.2);
  },
  { passive: false },
);
// Dragging pans. A press that moved is a drag, not a click, so it does not open the node it started on.
let drag: { x: number; y: number; moved: boolean } | undefined;
svg.addEventListener('pointerdown', (ev) => {
  drag = { x: ev.clientX, y: ev.clientY, moved: false };
});
svg.addEventListener('pointermove', (ev) => {
  if (!drag || (ev.buttons & 1) === 0) return;
  const dx = ev.clientX - drag.x;
  const dy = ev.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 4) return;
  drag.moved = true;
  const scale = svg.viewBox.baseVal.width / svg.getBoundingClientRect().width;
  pan = { x: pan.x + dx * scale, y: pan.y + dy * scale };
  drag.x = ev.clientX;
  drag.y = ev.clientY;
  render();
});
svg.addEventListener('pointerup', () => {
  if (drag && !drag.moved) drag = undefined;
});
svg.addEventListener(
  'click',
  (ev) => {
    if (drag?.moved) ev.preventDefault();
    drag = undefined;
  },
  true,
);
search.addEventListener('input', render);
radioFilter.addEventListener('change', render);
void refresh();
setInterval(() => void refresh(), REFRESH_MS);
