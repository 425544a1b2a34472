/**
 * The live log page: entries from `api/log` (Server-Sent Events) as table rows, newest first, filtered by node,
 * app id and direction, with pause and export of what is shown as JSON lines. Everything is set with
 * `textContent`, never as HTML, because every field came from a radio. Only the newest MAX_ROWS are kept in the
 * page, so the DOM stays small however fast the mesh talks.
 */
export {};

interface LogEntry {
  seq: number;
  at: number;
  direction: 'in' | 'out' | 'ack';
  id: string;
  sender: string;
  recipient: string;
  app_id: string;
  radio?: string;
  rssi?: number;
  hop_count?: number;
  dropped?: number;
}

const MAX_ROWS = 500;
const entries: LogEntry[] = [];
let paused = false;
let missed = 0;

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page lacks #${id}`);
  return el as T;
}

const body = byId<HTMLTableSectionElement>('log-rows');
const nodeFilter = byId<HTMLInputElement>('filter-node');
const appFilter = byId<HTMLInputElement>('filter-app');
const dirFilter = byId<HTMLSelectElement>('filter-direction');
const pauseButton = byId<HTMLButtonElement>('pause');
const exportButton = byId<HTMLButtonElement>('export');
const state = byId<HTMLElement>('state');

function shown(e: LogEntry): boolean {
  const node = nodeFilter.value.trim();
  const app = appFilter.value.trim();
  if (node && !e.sender.includes(node) && !e.recipient.includes(node)) return false;
  if (app && !e.app_id.includes(app)) return false;
  if (dirFilter.value && e.direction !== dirFilter.value) return false;
  return true;
}

function row(e: LogEntry): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.id = e.id;
  tr.dataset.direction = e.direction;
  const cells = [new Date(e.at).toISOString().slice(11, 23), e.direction, e.sender, e.recipient, e.app_id, e.radio ?? '', e.rssi ?? '', e.hop_count ?? '', e.id];
  for (const c of cells) {
    const td = document.createElement('td');
    td.textContent = String(c);
    tr.append(td);
  }
  return tr;
}

function render(): void {
  body.replaceChildren(...entries.filter(shown).map(row));
}

function showState(text: string): void {
  state.textContent = missed ? `${text} — ${missed} entries skipped because this page read too slowly` : text;
}

// Rows are drawn once per frame at most, so 200 messages a second cost one redraw per frame, not 200.
let drawQueued = false;
function queueDraw(): void {
  if (drawQueued || paused) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    render();
  });
}

const source = new EventSource('api/log');
source.addEventListener('open', () => showState('live'));
source.addEventListener('error', () => showState('reconnecting…'));
source.addEventListener('message', (ev: MessageEvent<string>) => {
  const entry = JSON.parse(ev.data) as LogEntry;
  if (entry.dropped) missed += entry.dropped;
  entries.unshift(entry);
  if (entries.length > MAX_ROWS) entries.length = MAX_ROWS;
  queueDraw();
});

for (const input of [nodeFilter, appFilter, dirFilter]) input.addEventListener('input', render);

pauseButton.addEventListener('click', () => {
  paused = !paused;
  pauseButton.textContent = paused ? 'Resume' : 'Pause';
  if (!paused) render();
});

exportButton.addEventListener('click', () => {
  const lines = entries.filter(shown).map((e) => JSON.stringify(e)).join('\n');
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([lines ? `${lines}\n` : ''], { type: 'application/x-ndjson' }));
  link.download = 'mesh-log.jsonl';
  link.click();
  URL.revokeObjectURL(link.href);
});
