/**
 * A node's page (`ui/node?address=…`): who it is and how it is heard, its readings as 24-hour charts, its recent
 * messages (envelopes; the text of one on request, with the auth token), a form that sends it a text and shows
 * what became of it as the gateway reports it, and a Forget button (with the token too). Refreshed from `api/nodes/<address>` every few seconds.
 */
import { lineChart } from './chart.js';
import { age, byId, clockTime, el, getJson, readingsText } from './dom.js';
import { fetchText, postAction, sendText, tokenField } from './send-form.js';

interface Message {
  id: string;
  at: number;
  recipient: string;
  app_id: string;
  content_type: string;
  hop_count: number;
  radio: string;
  rssi?: number;
  sender_verified: boolean;
  has_text: boolean;
}

interface NodeDetail {
  address: string;
  name?: string;
  connected: boolean;
  heard_by: Array<{ radio: string; peer: string; hop_count: number; rssi?: number }>;
  rssi?: number;
  battery?: number;
  load?: number;
  last_seen: number;
  messages: number;
  messages_per_min: number;
  readings: Record<string, number | string | boolean>;
  recent: Message[];
  history: Record<string, Array<[number, number]>>;
}

const REFRESH_MS = 3000;
const address = new URLSearchParams(location.search).get('address') ?? '';
const api = `../api/nodes/${encodeURIComponent(address)}`;
const token = tokenField(byId<HTMLInputElement>('token'));
const state = byId<HTMLElement>('state');
const results = byId<HTMLOListElement>('send-results');
/** Texts the user asked for, kept across refreshes (the table is redrawn each time). */
const revealed = new Map<string, string>();

function messageRow(m: Message): HTMLTableRowElement {
  const tr = el('tr');
  tr.dataset.id = m.id;
  const cells = [clockTime(m.at), m.recipient, m.app_id, m.content_type, m.radio, m.rssi ?? '', m.hop_count, m.sender_verified ? 'yes' : 'no', m.id];
  for (const c of cells) tr.append(el('td', c));
  const textCell = el('td', revealed.get(m.id), 'text');
  if (m.has_text && !revealed.has(m.id)) {
    const button = el('button', 'Show text');
    button.type = 'button';
    button.addEventListener('click', async () => {
      const r = await fetchText(`${api}/messages/${encodeURIComponent(m.id)}/text`, token());
      if ('text' in r) {
        revealed.set(m.id, r.text);
        textCell.replaceChildren(el('span', r.text));
      } else textCell.replaceChildren(el('span', r.refused, 'off'), button);
    });
    textCell.append(button);
  }
  tr.append(textCell);
  return tr;
}

function render(n: NodeDetail, now: number): void {
  byId('node-name').textContent = n.name ?? n.address;
  const heard = n.heard_by.map((h) => (h.hop_count === 0 ? `${h.radio} directly` : `${h.radio} via ${h.peer} (${h.hop_count} hops)`)).join(', ');
  // Battery and load come from the node's advertisement and only once a link reported them: shown when known.
  const power = `${n.battery !== undefined ? ` · battery ${n.battery} %` : ''}${n.load !== undefined ? ` · load ${n.load}` : ''}`;
  byId('node-meta').textContent = `${n.address} · ${n.connected ? 'connected' : 'not heard lately'} · heard by ${heard || 'nobody yet'} · RSSI ${n.rssi ?? '–'}${power} · last seen ${age(n.last_seen, now)} · ${n.messages_per_min} msg/min · ${n.messages} messages`;
  const readings = byId('readings');
  const charts = Object.entries(n.history).map(([key, points]) => lineChart(key, points, now));
  const latest = readingsText(n.readings);
  readings.replaceChildren(...(latest ? [el('p', latest, 'latest')] : [el('p', 'no readings (see the devices: section of the configuration)', 'hint')]), ...charts);
  byId('messages').replaceChildren(...n.recent.map(messageRow));
}

async function refresh(): Promise<void> {
  const r = await getJson<{ now: number; send_enabled: boolean; node: NodeDetail }>(api);
  if (!r.ok) {
    state.textContent = `${r.error.code}: ${r.error.message}`;
    return;
  }
  state.textContent = r.body.send_enabled ? '' : 'Actions are off on this gateway (no http.auth_token configured).';
  render(r.body.node, r.body.now);
}

byId<HTMLFormElement>('send-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = byId<HTMLInputElement>('send-text');
  void sendText(`${api}/send`, input.value, token(), results);
});

byId<HTMLButtonElement>('forget').addEventListener('click', async () => {
  if (!confirm('Forget this node? It comes back when it is heard again.')) return;
  const r = await postAction(`${api}/forget`, token(), {});
  const out = byId('forget-result');
  if ('refused' in r) {
    out.textContent = `refused: ${r.refused}`;
    out.className = 'off';
  } else location.href = 'nodes';
});

void refresh();
setInterval(() => void refresh(), REFRESH_MS);
