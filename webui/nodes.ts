/**
 * The nodes table: every node the gateway hears (and which of the site's other gateways hear it too), from `api/nodes` every few seconds, sortable by any column (click
 * a header; again to reverse) and searchable by name or address. Each address links to the node's page.
 */
import { age, byId, el, getJson, readingsText } from './dom.js';

interface Hearing {
  radio: string;
  peer: string;
  hop_count: number;
  rssi?: number;
}

interface NodeRow {
  address: string;
  name?: string;
  connected: boolean;
  heard_by: Hearing[];
  gateways: Array<{ gateway: string; rssi?: number }>;
  rssi?: number;
  last_seen: number;
  messages_per_min: number;
  readings: Record<string, number | string | boolean>;
}

type SortKey = 'name' | 'address' | 'heard_by' | 'rssi' | 'last_seen' | 'messages_per_min';

const REFRESH_MS = 3000;
const rowsEl = byId<HTMLTableSectionElement>('node-rows');
const state = byId<HTMLElement>('state');
const search = byId<HTMLInputElement>('search');
let nodes: NodeRow[] = [];
let now = Date.now();
let sortKey: SortKey = 'last_seen';
let descending = true;

function heardBy(n: NodeRow): string {
  const radios = n.heard_by.map((h) => (h.hop_count === 0 ? h.radio : `${h.radio} via ${h.peer} (${h.hop_count} hops)`));
  const gateways = n.gateways.map((g) => `gateway ${g.gateway}${g.rssi !== undefined ? ` (${g.rssi})` : ''}`);
  return [...radios, ...gateways].join(', ');
}

function sortValue(n: NodeRow, key: SortKey): string | number {
  switch (key) {
    case 'name':
      return (n.name ?? '').toLowerCase();
    case 'address':
      return n.address;
    case 'heard_by':
      return heardBy(n);
    case 'rssi':
      return n.rssi ?? -Infinity;
    case 'last_seen':
      return n.last_seen;
    case 'messages_per_min':
      return n.messages_per_min;
  }
}

function render(): void {
  const q = search.value.trim().toLowerCase();
  const shown = nodes.filter((n) => !q || n.address.toLowerCase().includes(q) || (n.name ?? '').toLowerCase().includes(q));
  shown.sort((a, b) => {
    const x = sortValue(a, sortKey);
    const y = sortValue(b, sortKey);
    const c = x < y ? -1 : x > y ? 1 : a.address < b.address ? -1 : 1;
    return descending ? -c : c;
  });
  rowsEl.replaceChildren(
    ...shown.map((n) => {
      const tr = el('tr');
      tr.dataset.address = n.address;
      const link = el('a', n.address);
      link.href = `node?address=${encodeURIComponent(n.address)}`;
      const addressCell = el('td');
      addressCell.append(link);
      tr.append(el('td', n.name ?? ''), addressCell, el('td', heardBy(n)), el('td', n.rssi ?? ''), el('td', age(n.last_seen, now), n.connected ? 'ok' : 'off'), el('td', n.messages_per_min), el('td', readingsText(n.readings)));
      return tr;
    }),
  );
  for (const b of document.querySelectorAll<HTMLButtonElement>('th button[data-sort]')) {
    if (b.dataset.sort === sortKey) b.dataset.dir = descending ? 'desc' : 'asc';
    else delete b.dataset.dir;
  }
}

async function refresh(): Promise<void> {
  const r = await getJson<{ now: number; nodes: NodeRow[] }>('../api/nodes');
  if (!r.ok) {
    state.textContent = `${r.error.code}: ${r.error.message}`;
    return;
  }
  nodes = r.body.nodes;
  now = r.body.now;
  state.textContent = `${nodes.length} node(s)`;
  render();
}

for (const b of document.querySelectorAll<HTMLButtonElement>('th button[data-sort]')) {
  b.addEventListener('click', () => {
    const key = b.dataset.sort as SortKey;
    descending = key === sortKey ? !descending : key === 'last_seen' || key === 'messages_per_min' || key === 'rssi';
    sortKey = key;
    render();
  });
}
search.addEventListener('input', render);
void refresh();
setInterval(() => void refresh(), REFRESH_MS);
