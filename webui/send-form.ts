/**
 * The node page's actions (send form, "show text", forget): each is an action, so each carries the auth token the user typed (kept
 * in this tab's sessionStorage, never in the page or a URL). A send's answer is a stream of JSON lines, shown one
 * by one as the gateway writes them: `sent`, then `acked` or `ack_timeout`; a refusal is shown with its code.
 */
import { el } from './dom.js';

const TOKEN_KEY = 'clawling-ui-token';

export function tokenField(input: HTMLInputElement): () => string {
  input.value = sessionStorage.getItem(TOKEN_KEY) ?? '';
  input.addEventListener('change', () => sessionStorage.setItem(TOKEN_KEY, input.value));
  return () => input.value.trim();
}

function authHeaders(token: string): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

interface SendLine {
  status: string;
  id?: string;
  via?: string[];
  ack?: { from: string; hop_count: number };
  error?: { code: string; message: string };
}

function describe(line: SendLine): string {
  if (line.error) return `${line.status}: ${line.error.code} — ${line.error.message}`;
  if (line.status === 'sent') return `sent ${line.id ?? ''} via ${(line.via ?? []).join(', ')}`;
  if (line.status === 'acked' && line.ack) return `acked by ${line.ack.from} after ${line.ack.hop_count} hop(s)`;
  return line.status;
}

/** Posts the text and appends a list item per line of the answer to `results`. */
export async function sendText(url: string, text: string, token: string, results: HTMLElement): Promise<void> {
  const item = (status: string, text: string): void => {
    const li = el('li', text);
    li.dataset.status = status;
    results.append(li);
  };
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders(token) }, body: JSON.stringify({ text }) });
  } catch (err) {
    item('error', `UI_NETWORK — ${(err as Error).message}`);
    return;
  }
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined;
    item('refused', `refused: ${body?.error?.code ?? `HTTP_${res.status}`} — ${body?.error?.message ?? res.statusText}`);
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffered.slice(0, nl)) as SendLine;
      buffered = buffered.slice(nl + 1);
      item(line.status, describe(line));
    }
  }
}

/** The text of one message, or the refusal as a sentence. */
export async function fetchText(url: string, token: string): Promise<{ text: string } | { refused: string }> {
  const res = await fetch(url, { headers: authHeaders(token), cache: 'no-store' });
  const body = (await res.json().catch(() => undefined)) as { text?: string; error?: { code: string; message: string } } | undefined;
  if (res.ok && typeof body?.text === 'string') return { text: body.text };
  return { refused: `${body?.error?.code ?? `HTTP_${res.status}`} — ${body?.error?.message ?? res.statusText}` };
}

/** Posts a JSON action; its JSON answer, or the refusal as a sentence. */
export async function postAction(url: string, token: string, body: unknown): Promise<{ ok: Record<string, unknown> } | { refused: string }> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders(token) }, body: JSON.stringify(body) });
  } catch (err) {
    return { refused: `UI_NETWORK — ${(err as Error).message}` };
  }
  const answer = (await res.json().catch(() => undefined)) as (Record<string, unknown> & { error?: { code: string; message: string } }) | undefined;
  if (res.ok && answer) return { ok: answer };
  return { refused: `${answer?.error?.code ?? `HTTP_${res.status}`} — ${answer?.error?.message ?? res.statusText}` };
}
