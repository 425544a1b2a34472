/**
 * What every web UI view needs: find an element the shell promised, make elements whose content is text (never
 * HTML: every value came from a radio or the mesh), fetch JSON from the API, and show times and ages.
 */

export function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page lacks #${id}`);
  return el as T;
}

/** An element holding `text` as text. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: unknown, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

/** A table row of text cells. */
export function textRow(cells: unknown[]): HTMLTableRowElement {
  const tr = el('tr');
  for (const c of cells) tr.append(el('td', c ?? ''));
  return tr;
}

export interface ApiError {
  code: string;
  message: string;
}

/** The API's JSON answer, or its coded error (a network failure is one too, so a view has one case to show). */
export async function getJson<T>(url: string, headers: Record<string, string> = {}): Promise<{ ok: true; body: T } | { ok: false; error: ApiError }> {
  let res: Response;
  try {
    res = await fetch(url, { headers, cache: 'no-store' });
  } catch (err) {
    return { ok: false, error: { code: 'UI_NETWORK', message: `the gateway did not answer (${(err as Error).message})` } };
  }
  const body = (await res.json().catch(() => undefined)) as (T & { error?: ApiError }) | undefined;
  if (!res.ok || body === undefined) return { ok: false, error: body?.error ?? { code: `HTTP_${res.status}`, message: res.statusText } };
  return { ok: true, body };
}

export function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** `12 s ago`, `3 min ago`, `2 h ago`. */
export function age(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

/** Readings as `key=value` pairs, numbers to at most two decimals. */
export function readingsText(readings: Record<string, number | string | boolean>): string {
  return Object.entries(readings)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? Math.round(v * 100) / 100 : String(v)}`)
    .join(' ');
}
